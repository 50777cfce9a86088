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

/** A number of seconds for a person: `95 s`, `12 min`, `1.5 h`. */
export function formatSeconds(s: number): string {
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/** A run's figures so far, for its progress lines (a worker's every 30 s, and each phase's end). */
export interface ProgressLine {
  fields: { scopesDone: number; scopesFound: number; requests: number; rowsWritten: number; etaSeconds: number | null };
  text: string;
}

/** The fields and words of a progress line: scopes done of found so far, requests, rows written, an ETA. */
export function progressLine(scopes: { done: number; total: number }, requests: number, written: number, elapsedMs: number): ProgressLine {
  const progress = runProgress(scopes.done, scopes.total, elapsedMs);
  const eta = progress.eta_seconds === null ? 'ETA not known yet' : `about ${formatSeconds(progress.eta_seconds)} left`;
  return {
    fields: { scopesDone: scopes.done, scopesFound: scopes.total, requests, rowsWritten: written, etaSeconds: progress.eta_seconds },
    text: `${scopes.done} of ${scopes.total} scopes found so far, ${requests} requests, ${written} rows written; ${eta}`,
  };
}
