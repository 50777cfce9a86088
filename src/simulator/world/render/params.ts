import { parseRequestDate } from '../dates.js';

/**
 * Request parameters as the upstream (an ASP.NET backend, by every sign) reads them: names in
 * any case, numbers given as text, booleans as true/false/1/0 in any case. A value that does not
 * parse counts as absent, so `EventId=abc` is a missing filter rather than event 0.
 */
export class Params {
  private readonly values = new Map<string, string>();

  constructor(query: URLSearchParams) {
    for (const [name, value] of query) {
      const key = name.toLowerCase();
      // The first occurrence wins, as ASP.NET model binding does for scalars.
      if (!this.values.has(key)) this.values.set(key, value.trim());
    }
  }

  private raw(name: string): string | undefined {
    const value = this.values.get(name.toLowerCase());
    return value === undefined || value === '' ? undefined : value;
  }

  int(name: string): number | undefined {
    const value = this.raw(name);
    return value !== undefined && /^-?\d+$/.test(value) ? Number(value) : undefined;
  }

  /** A positive integer, or undefined for absent, zero (the API's "all") or garbage. */
  positive(name: string): number | undefined {
    const value = this.int(name);
    return value !== undefined && value > 0 ? value : undefined;
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    return fallback;
  }

  /** A date as a day number (US M/D/YYYY, or YYYY-MM-DD). */
  date(name: string): number | undefined {
    const value = this.raw(name);
    return value === undefined ? undefined : parseRequestDate(value);
  }
}
