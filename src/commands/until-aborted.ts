/**
 * Settles when `signal` aborts: what a command that runs until SIGTERM (`worker`, `serve-sql`)
 * awaits. A pending promise does not keep Node's event loop alive, and neither does a signal
 * handler: when nothing else holds it for a moment (the pool's idle clients closed, a worker's
 * lock session lost with its sources' schedules stopped, its beat timer being unref'd), Node
 * would exit with code 13 ("unsettled top-level await") in the middle of the command. The timer
 * is what holds the process until the signal comes.
 */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const hold = setInterval(() => undefined, 1 << 30);
    signal.addEventListener(
      'abort',
      () => {
        clearInterval(hold);
        resolve();
      },
      { once: true },
    );
  });
}
