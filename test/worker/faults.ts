import { startCli, type RunningCli } from '../helpers/cli.js';
import type { ProxiedConnection } from '../helpers/fault-proxy.js';

import { logLines, sleep } from './process.js';

// What the tests that break the network under worker processes share: the lock-session faults
// (lock-session-faults.test.ts) and the pooled-connection faults and the stop
// (pool-faults.test.ts), in files of their own so that they run in separate test processes.

/** Each key's cap: low enough that a tiny site's full (about 110 requests) outlasts every fault here. */
export const MAX_RPS = 4;
/**
 * How many more the simulator may count in its busiest second than were sent in theirs: it shares
 * this process's event loop with the test's polling, so arrivals held up behind other work bunch
 * (test/coordination/guest.test.ts). That the cut-off worker sent nothing after its loss is
 * proved at its own proxy, byte for byte.
 */
export const ARRIVAL_BUNCHING = 1;

/** A worker's lock session, as its startup packet names it. */
export const isLockSession = (c: ProxiedConnection) => (c.params.application_name ?? '').startsWith('pitwall worker');

/** A worker process whose stderr is read as it goes, for the lines it logs while running. */
export function startWorker(env: Record<string, string>): RunningCli & { lines: () => ReturnType<typeof logLines> } {
  const worker = startCli(['worker'], env, 240_000);
  let pending = '';
  const lines: ReturnType<typeof logLines> = [];
  worker.child.stderr?.on('data', (d: Buffer) => {
    pending += d.toString();
    const end = pending.lastIndexOf('\n') + 1;
    lines.push(...logLines(pending.slice(0, end)));
    pending = pending.slice(end);
  });
  return { ...worker, lines: () => lines };
}

/** The worker's `/healthz`: its status, and its reason when unhealthy (status 0: no answer). */
export async function healthz(port: number): Promise<{ status: number; reason?: string }> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(5_000) });
    return { status: res.status, ...((await res.json()) as { reason?: string }) };
  } catch {
    return { status: 0 };
  }
}

/** The worker's `/status.json`. */
export async function statusOf(port: number): Promise<{ lock_session?: string }> {
  return (await (await fetch(`http://127.0.0.1:${port}/status.json`, { signal: AbortSignal.timeout(10_000) })).json()) as { lock_session?: string };
}

/** Polls `check` every 250 ms until it is true; real time, since real processes are watched. */
export async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(250);
  }
}

