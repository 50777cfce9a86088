import { FAULT_KINDS, type FaultKind } from './options.js';
import { withoutParams } from './transport-params.js';

/**
 * Counts of the API requests the simulator received, for tests that assert how a client walked
 * the API (how often, which parameters, how many faults it absorbed). The key is never recorded:
 * the log is served over the admin API and may end up in test output.
 */
export interface RequestLog {
  /** Every request outside /__simulator/, faulted or not. */
  total: number;
  /** By `path?query`, the query sorted by name, form-encoded, without `key`; bare `path` when empty. */
  byPath: Record<string, number>;
  /** Faults that were actually applied, by kind (every kind is listed, zero when none). */
  faults: Record<FaultKind, number>;
  /**
   * By site (1 for the first site's key; 0 for a request whose key is no site's): requests, and
   * the most that arrived within any one second, which a client keeping to N per second keeps at
   * N or N + 1. Never by key: the log holds no key.
   */
  bySite: Record<number, { requests: number; peakPerSecond: number }>;
}

/** One site's arrivals: the count, the peak, and the arrival times of the last second. */
interface SiteArrivals {
  requests: number;
  peakPerSecond: number;
  lastSecond: number[];
}

/**
 * The canonical spelling of a request: parameters sorted by name, `key` and `omit` removed.
 * Names are dropped case-insensitively, so a `Key=` typo cannot leak the key into the log.
 */
export function canonicalRequest(path: string, query: URLSearchParams, omit: readonly string[] = []): string {
  const params = withoutParams(query, ['key', ...omit.map((n) => n.toLowerCase())]);
  params.sort();
  const text = params.toString();
  return text === '' ? path : `${path}?${text}`;
}

export interface RequestRecorder {
  /** `site`: the site whose key the request carries, 1-based; 0 for none. */
  recordRequest(path: string, query: URLSearchParams, site: number): void;
  recordFault(kind: FaultKind): void;
  snapshot(): RequestLog;
  reset(): void;
}

export function createRequestRecorder(): RequestRecorder {
  let total = 0;
  let byPath = new Map<string, number>();
  let faults = new Map<FaultKind, number>();
  let bySite = new Map<number, SiteArrivals>();
  return {
    recordRequest(path, query, site) {
      total++;
      const key = canonicalRequest(path, query);
      byPath.set(key, (byPath.get(key) ?? 0) + 1);
      const arrivals = bySite.get(site) ?? { requests: 0, peakPerSecond: 0, lastSecond: [] };
      bySite.set(site, arrivals);
      const now = performance.now();
      while (arrivals.lastSecond.length > 0 && (arrivals.lastSecond[0] as number) <= now - 1000) arrivals.lastSecond.shift();
      arrivals.lastSecond.push(now);
      arrivals.requests++;
      arrivals.peakPerSecond = Math.max(arrivals.peakPerSecond, arrivals.lastSecond.length);
    },
    recordFault(kind) {
      faults.set(kind, (faults.get(kind) ?? 0) + 1);
    },
    snapshot() {
      const faultCounts = Object.fromEntries(FAULT_KINDS.map((k) => [k, faults.get(k) ?? 0]));
      const sites = Object.fromEntries([...bySite].map(([site, a]) => [site, { requests: a.requests, peakPerSecond: a.peakPerSecond }]));
      return { total, byPath: Object.fromEntries(byPath), faults: faultCounts as Record<FaultKind, number>, bySite: sites };
    },
    reset() {
      total = 0;
      byPath = new Map();
      faults = new Map();
      bySite = new Map();
    },
  };
}
