/** A process's beat: its one timer loop of coordination (src/coordination/lease.ts). */
export interface Beat {
  /** Stops beating; resolves once the beat in flight has ended. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Runs `step` every `intervalMs`, each beat only after the previous one ended, so beats never
 * overlap and a slow one delays the next instead of piling up behind it. The step handles its own
 * failures; one that throws is passed to `failed`. The timer never keeps the process alive.
 */
export function startBeat(step: () => Promise<void>, intervalMs: number, failed: (err: unknown) => void): Beat {
  let beating: Promise<void> = Promise.resolve();
  let stopped = false;
  const timer = setInterval(() => {
    beating = beating.then(() => (stopped ? undefined : step().catch(failed)));
  }, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await beating;
    },
  };
}
