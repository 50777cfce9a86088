/**
 * The transport parameters, `key` and `jsoncallback`: the server consumes them and the world
 * never sees them. The upstream is an ASP.NET service, where query parameter names are
 * case-insensitive (`?KEY=`, `?JsonCallback=` work there), so they are read that way here, as
 * the world already reads its filter names.
 */

const TRANSPORT_PARAMS = ['key', 'jsoncallback'] as const;
type TransportParam = (typeof TRANSPORT_PARAMS)[number];

/** The first value of `name` in `query`, whatever the case of its spelling; null when absent. */
export function transportParam(query: URLSearchParams, name: TransportParam): string | null {
  for (const [param, value] of query) if (param.toLowerCase() === name) return value;
  return null;
}

/** `query` without the parameters `names` (lower case), in any spelling. */
export function withoutParams(query: URLSearchParams, names: readonly string[]): URLSearchParams {
  const drop = new Set(names);
  return new URLSearchParams([...query].filter(([name]) => !drop.has(name.toLowerCase())));
}

/** `query` without its transport parameters, in any spelling. */
export const withoutTransportParams = (query: URLSearchParams): URLSearchParams => withoutParams(query, TRANSPORT_PARAMS);
