import { describe, expect, it } from 'vitest';

import type { RunningSimulator } from '../../../src/simulator/server.js';

import { apiUrl, sampleIds, startTestSimulator, testWorld } from './helpers.js';

async function bodies(sim: RunningSimulator): Promise<string[]> {
  const { eventId, scheduleId, classId } = await sampleIds(sim);
  const calls: [string, Record<string, number>][] = [
    ['/v2/schedules/', {}],
    ['/v2/schedules/events/', { ScheduleId: scheduleId }],
    ['/v2/schedules/results/', { EventId: eventId }],
    ['/v2/schedules/results/feed/', {}],
    ['/v2/points/', { ScheduleId: scheduleId, ClassId: classId }],
    ['/v2/points/classes/', { ScheduleId: scheduleId }],
  ];
  const texts: string[] = [];
  for (const [path, params] of calls) texts.push(await (await fetch(apiUrl(sim, path, params))).text());
  return texts;
}

describe('determinism', () => {
  it('serves byte-identical bodies from two simulators with the same seed', async () => {
    const first = await startTestSimulator({ world: testWorld(11) });
    const second = await startTestSimulator({ world: testWorld(11) });
    const a = await bodies(first);
    const b = await bodies(second);
    expect(a).toHaveLength(6);
    expect(b).toEqual(a);
  });

  it('serves different bodies for a different seed', async () => {
    const first = await startTestSimulator({ world: testWorld(11) });
    const other = await startTestSimulator({ world: testWorld(12) });
    expect(await bodies(other)).not.toEqual(await bodies(first));
  });
});
