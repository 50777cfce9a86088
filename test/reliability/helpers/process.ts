import type { RunningCli } from '../../helpers/cli.js';

/** Resolves once `ready()` holds (polled every few ms), or false once the process has exited. */
export async function until(ready: () => boolean, cli: RunningCli): Promise<boolean> {
  let exited = false;
  void cli.exited.then(() => (exited = true));
  while (!ready()) {
    if (exited) return false;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return true;
}

/** A small seeded generator (mulberry32), so a failing sequence of kill moments can be replayed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
