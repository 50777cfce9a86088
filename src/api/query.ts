export type QueryValue = string | number | boolean | undefined;
export type QueryParams = Readonly<Record<string, QueryValue>>;

/** The credential's parameter name. Excluded from every string pitwall stores, logs or shows. */
const KEY_PARAM = 'key';

function encodeValue(name: string, value: string | number | boolean): string {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new RangeError(`query parameter ${name} must be a finite number, got ${value}`);
  }
  // The upstream reads booleans as the strings true/false (api-reference §1).
  return encodeURIComponent(String(value));
}

/**
 * The parameters as one stable string: names sorted by code unit (locale-independent),
 * names and values URL-encoded, undefined values dropped, and `key` left out in any letter case
 * (the upstream is probably case-insensitive about names). Equal parameter sets always give the
 * same string, which is why pitwall stores it as a request scope's `params`.
 */
export function canonicalQuery(params: QueryParams): string {
  const parts: string[] = [];
  const names = Object.keys(params).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const name of names) {
    const value = params[name];
    if (value === undefined || name.toLowerCase() === KEY_PARAM) continue;
    parts.push(`${encodeURIComponent(name)}=${encodeValue(name, value)}`);
  }
  return parts.join('&');
}

/**
 * `baseUrl` + `path` + query. `path` is the full upstream path such as `/v2/schedules/`
 * (its trailing slash matters upstream and is kept). Without `key` the result is the URL as
 * pitwall shows it in logs and errors; with it, the URL actually fetched.
 */
export function buildUrl(baseUrl: string, path: string, params: QueryParams, key?: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  const rel = path.startsWith('/') ? path : `/${path}`;
  const parts = [canonicalQuery(params)];
  if (key !== undefined) parts.push(`${KEY_PARAM}=${encodeURIComponent(key)}`);
  const query = parts.filter((p) => p !== '').join('&');
  return query === '' ? `${base}${rel}` : `${base}${rel}?${query}`;
}
