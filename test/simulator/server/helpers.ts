import { onTestFinished } from 'vitest';

import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../../src/simulator/server.js';
import { createWorld } from '../../../src/simulator/world/index.js';
import type { World } from '../../../src/simulator/world/types.js';

/** A fresh world for one test: the real one, at the smallest scale (built in milliseconds). */
export function testWorld(seed = 7): World {
  return createWorld({ seed, scale: 'tiny' });
}

/**
 * Starts a simulator on an ephemeral loopback port, closed after the test: over the tiny test
 * world unless given a world, or `sites` (which the simulator builds from seed and scale).
 */
export async function startTestSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const sim = await startSimulator(options.sites === undefined ? { world: options.world ?? testWorld(options.seed), ...options } : options);
  // Registered by the test that starts it (not by this module once), so it holds when test files share a process.
  onTestFinished(() => sim.close());
  return sim;
}

/** The URL of an API call with the simulator's key (or another site's) and the given filters. */
export function apiUrl(sim: RunningSimulator, path: string, params: Record<string, string | number> = {}, key = sim.key): string {
  const query = new URLSearchParams({ key });
  for (const [name, value] of Object.entries(params)) query.set(name, String(value));
  return `${sim.url}${path}?${query}`;
}

type JsonAnswer = { status: number; body: Record<string, unknown> };

export async function getJson(url: string, init?: RequestInit): Promise<JsonAnswer> {
  const res = await fetch(url, init);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export async function postJson(sim: RunningSimulator, route: string, body: unknown): Promise<JsonAnswer> {
  return getJson(`${sim.url}/__simulator/${route}`, { method: 'POST', body: JSON.stringify(body) });
}

export interface SampleIds {
  eventId: number;
  scheduleId: number;
  classId: number;
}

/**
 * IDs that exist in the world, found through the API itself so the tests do not depend on how
 * the world numbers things: the first event that has results, its schedule, a points class.
 */
export async function sampleIds(sim: RunningSimulator): Promise<SampleIds> {
  const feed = await getJson(apiUrl(sim, '/v2/schedules/results/feed/'));
  const event = (feed.body.Events as { EventId: number | string }[])[0];
  const points = await getJson(apiUrl(sim, '/v2/points/schedules/'));
  const schedule = (points.body.Schedules as { ScheduleId: number | string }[])[0];
  if (!event || !schedule) throw new Error('the test world has no event with results or no points schedule');
  const classes = await getJson(apiUrl(sim, '/v2/points/classes/', { ScheduleId: schedule.ScheduleId }));
  const cls = (classes.body.Classes as { ClassId: number | string }[])[0];
  if (!cls) throw new Error('the test world has no points class');
  return { eventId: Number(event.EventId), scheduleId: Number(schedule.ScheduleId), classId: Number(cls.ClassId) };
}
