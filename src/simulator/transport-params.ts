/**
 * The transport parameters, `key` and `jsoncallback`: the server consumes them and the world
 * never sees them. The upstream is an ASP.NET service, where query parameter names are
 * case-insensitive (`?KEY=`, `?JsonCallback=` work there), so they are read that way here, as
 * the world already reads its filter names.
 */

export const TRANSPORT_PARAMS = ['key', 'jsoncallback'] as const;
export type TransportParam = (typeof TRANSPORT_PARAMS)[number];

/** The first value of `name` in `query`, whatever the case of its spelling; null when absent. */
export function transportParam(query: URLSearchParams, name: TransportParam): string | null {
  for (const [param, value] of query) if (param.toLowerCase() === name) return value;
  return null;
}

/** `query` without its transport parameters, in any spelling. */
export function withoutTransportParams(query: URLSearchParams): URLSearchParams {
  const transport = new Set<string>(TRANSPORT_PARAMS);
  return new URLSearchParams([...query].filter(([name]) => !transport.has(name.toLowerCase())));
}
