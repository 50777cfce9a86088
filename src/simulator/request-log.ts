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
  recordRequest(path: string, query: URLSearchParams): void;
  recordFault(kind: FaultKind): void;
  snapshot(): RequestLog;
  reset(): void;
}

export function createRequestRecorder(): RequestRecorder {
  let total = 0;
  let byPath = new Map<string, number>();
  let faults = new Map<FaultKind, number>();
  return {
    recordRequest(path, query) {
      total++;
      const key = canonicalRequest(path, query);
      byPath.set(key, (byPath.get(key) ?? 0) + 1);
    },
    recordFault(kind) {
      faults.set(kind, (faults.get(kind) ?? 0) + 1);
    },
    snapshot() {
      const faultCounts = Object.fromEntries(FAULT_KINDS.map((k) => [k, faults.get(k) ?? 0]));
      return { total, byPath: Object.fromEntries(byPath), faults: faultCounts as Record<FaultKind, number> };
    },
    reset() {
      total = 0;
      byPath = new Map();
      faults = new Map();
    },
  };
}
