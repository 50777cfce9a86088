import { setTimeout as sleep } from 'node:timers/promises';

import type { SimulatorProcess } from './child.js';

/** Requests the simulator has answered since its last reset: its own count, whatever the runs recorded. */
export async function simulatorTotal(sim: SimulatorProcess, reset = false): Promise<number> {
  const { total } = (await (await fetch(`${sim.url}/__simulator/requests`)).json()) as { total: number };
  if (reset) await fetch(`${sim.url}/__simulator/requests/reset`, { method: 'POST' });
  return total;
}

/** Resolves once the simulator has answered `count` requests, or as soon as `going()` is false (the process sending them has exited). */
export async function untilRequests(sim: SimulatorProcess, count: number, going: () => boolean): Promise<void> {
  while (going() && (await simulatorTotal(sim)) < count) await sleep(20);
}
