import { describe, expect, it } from 'vitest';

import type { RunningSimulator } from '../../../src/simulator/server.js';
import { createWorld } from '../../../src/simulator/world/index.js';

import { apiUrl, getJson, startTestSimulator } from './helpers.js';

const SEED = 11;

/** Every event a key lists, through the API: event id -> the names of the schedules listing it. */
async function listedEvents(sim: RunningSimulator, key: string): Promise<Map<number, string[]>> {
  const listed = new Map<number, string[]>();
  const { body } = await getJson(apiUrl(sim, '/v2/schedules/', {}, key));
  for (const s of body.Schedules as { ScheduleId: number | string; ScheduleName: string }[]) {
    const events = await getJson(apiUrl(sim, '/v2/schedules/events/', { ScheduleId: s.ScheduleId }, key));
    for (const e of events.body.ScheduleEvents as { EventId: number | string }[]) {
      const id = Number(e.EventId);
      listed.set(id, [...(listed.get(id) ?? []), s.ScheduleName]);
    }
  }
  return listed;
}

const sharedIds = (a: Map<number, string[]>, b: Map<number, string[]>): number[] => [...a.keys()].filter((id) => b.has(id));

describe('three sites: two tracks and a series whose touring series races at them', () => {
  it('lists some events of each track site in the series site\'s touring series, with their ids', async () => {
    const sim = await startTestSimulator({ sites: 3, scale: 'tiny', seed: SEED });
    const [track1, track2, series] = await Promise.all(sim.sites.map((s) => listedEvents(sim, s.key)));
    expect(sharedIds(series!, track1!).length).toBeGreaterThan(0);
    expect(sharedIds(series!, track2!).length).toBeGreaterThan(0);
    expect(sharedIds(track1!, track2!)).toEqual([]);
    for (const id of [...sharedIds(series!, track1!), ...sharedIds(series!, track2!)]) {
      expect(series!.get(id)?.every((name) => name.endsWith('Touring Series')), String(id)).toBe(true);
    }
    const points = await getJson(apiUrl(sim, '/v2/points/schedules/', {}, sim.sites[2]!.key));
    const tours = (points.body.Schedules as { ScheduleName: string; ClassCount: number }[]).filter((s) => s.ScheduleName.endsWith('Touring Series'));
    expect(tours.length).toBeGreaterThan(0);
    expect(tours.every((s) => s.ClassCount > 0)).toBe(true);
  });

  it('serves every shared event byte for byte alike to both keys, quirks included', async () => {
    const sim = await startTestSimulator({ sites: 3, scale: 'tiny', seed: SEED });
    const seriesKey = sim.sites[2]!.key;
    const series = await listedEvents(sim, seriesKey);
    const body = async (path: string, params: Record<string, number>, key: string) => (await fetch(apiUrl(sim, path, params, key))).text();
    let withResults = 0;
    for (const trackKey of [sim.sites[0]!.key, sim.sites[1]!.key]) {
      for (const eventId of sharedIds(series, await listedEvents(sim, trackKey))) {
        const results = JSON.parse(await body('/v2/schedules/results/', { EventId: eventId }, trackKey)) as { Classes: { ClassId: number | string }[] };
        const classId = Number(results.Classes[0]?.ClassId ?? 0);
        if (classId > 0) withResults++;
        const calls: [string, Record<string, number>][] = [
          ['/v2/schedules/events/', { EventId: eventId }],
          ['/v2/schedules/results/', { EventId: eventId }],
          ['/v2/schedules/results/', { EventId: eventId, ClassId: classId, RaceCount: 1 }],
          ['/v2/schedules/lineups/', { EventId: eventId }],
          ['/v2/schedules/entryList/', { EventId: eventId }],
          ['/v2/schedules/driverPasses/', { EventId: eventId }],
        ];
        for (const [path, params] of calls) {
          expect(await body(path, params, seriesKey), `${path} ${JSON.stringify(params)}`).toBe(await body(path, params, trackKey));
        }
      }
    }
    // Events that have run, so results, lineups and passes were compared, not only empty lists.
    expect(withResults).toBeGreaterThan(1);
  });

  it('leaves what a track site\'s key should produce as it was without the series', async () => {
    const sim = await startTestSimulator({ sites: 3, scale: 'tiny', seed: SEED });
    const truth = await getJson(`${sim.url}/__simulator/truth?key=${sim.sites[1]!.key}`);
    const alone = createWorld({ seed: SEED, scale: 'tiny', site: 2, sites: 1 });
    expect(truth.body).toEqual(JSON.parse(JSON.stringify(alone.truth())));
  });
});
