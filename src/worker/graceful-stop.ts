/**
 * The two stages of a graceful stop, as signals: `drain` (start nothing new; let in-flight
 * requests and transactions finish) and, `timeoutMs` later, `abort` (cancel whatever is still in
 * flight). Shared by `pitwall sync` and the worker so both stop the same way.
 */
export interface GracefulStop {
  readonly drain: AbortSignal;
  readonly abort: AbortSignal;
  /** Starts the drain and arms the abort timer. Safe to call more than once. */
  begin(reason?: unknown): void;
  /** Aborts now, whatever the timer says. */
  abortNow(reason?: unknown): void;
  /** Clears the timer: call once the work has ended, so it cannot hold the process open. */
  dispose(): void;
}

/** `trigger`, when given, begins the stop when it aborts (the CLI's first-signal AbortSignal). */
export function gracefulStop(timeoutMs: number, trigger?: AbortSignal): GracefulStop {
  const drain = new AbortController();
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const abortNow = (reason?: unknown) => {
    clearTimeout(timer);
    if (!abort.signal.aborted) abort.abort(reason ?? new Error('shutdown timeout passed; cancelling in-flight work'));
  };
  const begin = (reason?: unknown) => {
    if (drain.signal.aborted) return;
    drain.abort(reason ?? new Error('stopping'));
    if (timeoutMs === 0) return abortNow();
    timer = setTimeout(
      () => abortNow(new Error(`in-flight work did not finish within ${timeoutMs} ms of the stop; cancelled`)),
      timeoutMs,
    );
  };
  const onTrigger = () => begin(trigger?.reason);
  if (trigger?.aborted) onTrigger();
  else trigger?.addEventListener('abort', onTrigger, { once: true });
  return {
    drain: drain.signal,
    abort: abort.signal,
    begin,
    abortNow,
    dispose: () => {
      clearTimeout(timer);
      trigger?.removeEventListener('abort', onTrigger);
    },
  };
}
