import { describe, expect, it } from 'vitest';

import { apiUrl, getJson, postJson, sampleIds, startTestSimulator } from './helpers.js';

describe('admin routes over the world', () => {
  it('GET world and truth serve the world summary and its ground truth', async () => {
    const sim = await startTestSimulator();
    expect((await getJson(`${sim.url}/__simulator/world`)).body).toEqual(sim.world.summary());
    expect((await getJson(`${sim.url}/__simulator/truth`)).body).toEqual(sim.world.truth());
    const one = await getJson(`${sim.url}/__simulator/truth?table=drivers`);
    expect(Object.keys(one.body)).toEqual(['drivers']);
    expect((await getJson(`${sim.url}/__simulator/truth?table=nope`)).status).toBe(400);
  });

  it('cancel-event removes the event from what the API serves', async () => {
    const sim = await startTestSimulator();
    const { eventId } = await sampleIds(sim);
    const events = sim.world.summary().events;
    expect((await postJson(sim, 'cancel-event', { eventId })).status).toBe(200);
    expect(sim.world.summary().events).toBe(events - 1);
    const single = await getJson(apiUrl(sim, '/v2/schedules/events/', { EventId: eventId }));
    expect(single.body.ItemsReturned ?? 0).toBe(0);
  });

  it('rename-driver changes the name the API serves', async () => {
    const sim = await startTestSimulator({ quirks: { doubleComma: 0 } });
    const { scheduleId, classId } = await sampleIds(sim);
    const url = apiUrl(sim, '/v2/points/', { ScheduleId: scheduleId, ClassId: classId });
    const points = (await getJson(url)).body.Points as { Driver: { DriverId: number | string }[] }[];
    const driverId = Number(points[0]?.Driver[0]?.DriverId);
    expect((await postJson(sim, 'rename-driver', { driverId, lastName: 'Renamedson' })).status).toBe(200);
    expect(await (await fetch(url)).text()).toContain('"Renamedson"');
  });

  it('refuses a correction for an event that does not exist, or one that sets nothing', async () => {
    const sim = await startTestSimulator();
    const correction = { eventId: 999_999_999, classId: 1, raceNumber: 1, rowIndex: 1, set: { finish: 2 } };
    expect((await postJson(sim, 'correct-result', correction)).status).toBe(400);
    expect((await postJson(sim, 'correct-result', { ...correction, set: {} })).status).toBe(400);
  });
});
