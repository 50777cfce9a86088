import { inspect } from 'node:util';

/** What a secret is replaced with in logs and error messages. */
export const REDACTED = '[redacted]';

/**
 * A URL with its password shown as `****`, for messages and logs. Works on the raw text rather
 * than through `new URL()`, so a value that does not parse (the case a config error reports)
 * is masked too, and the rest of the text is shown exactly as the user wrote it.
 */
export function maskUrl(url: string): string {
  const schemeEnd = url.indexOf('://');
  const authorityStart = schemeEnd === -1 ? 0 : schemeEnd + 3;
  const rest = url.slice(authorityStart);
  const pathStart = rest.search(/[/?#]/);
  const authority = pathStart === -1 ? rest : rest.slice(0, pathStart);
  // The last `@` ends the userinfo: an unencoded `@` inside a password must not end it early.
  const at = authority.lastIndexOf('@');
  if (at === -1) return url;
  const userinfo = authority.slice(0, at);
  const colon = userinfo.indexOf(':');
  if (colon === -1) return url;
  const masked = `${userinfo.slice(0, colon)}:****${authority.slice(at)}`;
  return url.slice(0, authorityStart) + masked + rest.slice(authority.length);
}

/**
 * The secrets among pitwall's settings (the API key, the HTTP token, the database passwords as
 * written and decoded: DATABASE_URL's and PITWALL_LOCK_DATABASE_URL's), for the logger's and the
 * errors' redaction: from a parsed config, or from the raw environment when the CLI reports a
 * command that failed before its config was read.
 */
export function secretsOf(values: {
  apiKey?: string | undefined;
  httpToken?: string | undefined;
  databaseUrl?: string | undefined;
  lockDatabaseUrl?: string | undefined;
}): string[] {
  const secrets = [values.apiKey, values.httpToken].filter((s): s is string => !!s);
  for (const url of [values.databaseUrl, values.lockDatabaseUrl]) {
    const password = rawPassword(url);
    for (const form of [password, safeDecode(password)]) if (form && !secrets.includes(form)) secrets.push(form);
  }
  return secrets;
}

function rawPassword(url: string | undefined): string {
  if (!url) return '';
  try {
    return new URL(url).password;
  } catch {
    return '';
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * A secret this long is masked wherever it occurs: a run of 8 or more characters equal to the
 * key is not a coincidence. A shorter one (`MRP_API_KEY=x`) is masked only where it stands as a
 * value, or else every "x" of "database does not exist" would go with it.
 */
const MASK_ANYWHERE_MIN_LENGTH = 8;

/**
 * Every form in which a secret can end up in text we emit: as written, URL-encoded (it travels
 * in a query string) and JSON-escaped (log lines are JSON). Longest first, so a secret that
 * contains another is replaced whole.
 */
export function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Where a short secret stands as a value: after `name=` (a query string, `key=x`, also
 * URL-encoded inside another URL), after `Bearer `, as a JSON string value (`"key":"x"`, or an
 * array's element `["x"]`, never a field's name `,"x":`), as a URL's password (`://user:x@`),
 * or, when it holds a character no word has (`a&b"c`), as a whole token. Each needs the form to end where a value ends, so `key=xyz` keeps its `xyz` for
 * the key `x`.
 */
function valuePattern(form: string): RegExp {
  const f = escapeRegExp(form);
  const end = '(?![\\w%-])';
  const contexts = [
    `(?<==)${f}${end}`,
    // A query string inside another URL's query string: `%3D` is `=`, `%26` is `&`.
    `(?<=%3[Dd])${f}(?=%26|%23|$|[^\\w%-])`,
    `(?<=\\b[Bb]earer\\s+)${f}${end}`,
    `(?<="\\s*:\\s*")${f}(?=")`,
    `(?<=[[,]\\s*")${f}(?="\\s*[,\\]])`,
    `(?<=:\\/\\/[^\\s/:@]*:)${f}(?=@)`,
  ];
  if (/\W/.test(form)) contexts.push(`(?<![\\w%-])${f}${end}`);
  // Case-sensitive: a key differs from the same letters in another case.
  return new RegExp(contexts.join('|'), 'g');
}

/** Per form of a secret: the text replaced everywhere (a long one), or the pattern of its places as a value. */
type RedactionPlan = ReadonlyArray<string | RegExp>;

/** Plans by secrets list: the logger redacts every line with the same list, so its patterns compile once. */
const plans = new WeakMap<readonly string[], RedactionPlan>();

function planFor(secrets: readonly string[]): RedactionPlan {
  let plan = plans.get(secrets);
  if (!plan) {
    plan = secretForms(secrets).map((form) => (form.length >= MASK_ANYWHERE_MIN_LENGTH ? form : valuePattern(form)));
    plans.set(secrets, plan);
  }
  return plan;
}

/**
 * `text` with each secret replaced by `[redacted]`: everywhere for a long secret, where it
 * stands as a value for a short one (see MASK_ANYWHERE_MIN_LENGTH).
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  // A global RegExp keeps its lastIndex between calls, but String.replace resets it.
  for (const form of planFor(secrets)) out = typeof form === 'string' ? out.replaceAll(form, REDACTED) : out.replace(form, REDACTED);
  return out;
}

function containsSecret(text: string, secrets: readonly string[]): boolean {
  return redact(text, secrets) !== text;
}

/**
 * `err` itself when nothing in it (message, stack, fields, cause chain) mentions a secret;
 * otherwise a plain copy with the secrets redacted. Errors from fetch can quote the request URL
 * ("Failed to parse URL from …?key=…"), and we keep such errors as `cause`, so they are checked
 * before they leave the module that knows the key.
 */
export function redactError(err: unknown, secrets: readonly string[], depth = 0): unknown {
  if (secrets.length === 0) return err;
  if (!(err instanceof Error)) {
    const text = typeof err === 'string' ? err : inspect(err);
    return containsSecret(text, secrets) ? redact(text, secrets) : err;
  }
  if (!containsSecret(inspect(err, { depth: 6 }) + (err.stack ?? ''), secrets)) return err;
  const copy = new Error(redact(err.message, secrets));
  copy.name = err.name;
  copy.stack = redact(err.stack ?? '', secrets);
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') Object.assign(copy, { code });
  if (err.cause !== undefined && depth < 5) copy.cause = redactError(err.cause, secrets, depth + 1);
  return copy;
}
