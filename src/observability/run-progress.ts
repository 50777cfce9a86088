/** How far a running run has come, and when it may end. */
export interface RunProgress {
  scopes_done: number;
  /** Scopes known so far: the walk discovers scopes as it goes, so this grows during a run. */
  scopes_total: number;
  /** `estimating` while too little is done to tell; `unknown` when nothing is known yet to be left. */
  eta: 'estimated' | 'estimating' | 'unknown';
  /** Seconds left at the rate of scopes done since the start; null unless `eta` is `estimated`. */
  eta_seconds: number | null;
}

/** Below either, a rate says more about the first requests' latency than about the run. */
const MIN_SCOPES_FOR_ETA = 10;
const MIN_ELAPSED_MS_FOR_ETA = 10_000;

/**
 * The ETA of a run from its own pace: scopes left over scopes done per ms since it started. A
 * lower bound, since the total grows as the walk discovers scopes (a run's first scopes are its
 * roots, which fan out).
 */
export function runProgress(scopesDone: number, scopesTotal: number, elapsedMs: number): RunProgress {
  const base = { scopes_done: scopesDone, scopes_total: scopesTotal };
  if (scopesTotal <= 0) return { ...base, eta: 'unknown', eta_seconds: null };
  if (scopesDone < MIN_SCOPES_FOR_ETA || elapsedMs < MIN_ELAPSED_MS_FOR_ETA) return { ...base, eta: 'estimating', eta_seconds: null };
  const left = Math.max(0, scopesTotal - scopesDone);
  return { ...base, eta: 'estimated', eta_seconds: Math.round((left * elapsedMs) / scopesDone / 1000) };
}
