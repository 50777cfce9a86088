import { describe, expect, it } from 'vitest';

import { DEFAULT_QUIRKS } from '../../../src/simulator/world/types.js';

import { apiUrl, getJson, postJson, startTestSimulator } from './helpers.js';

describe('admin fault and quirk config', () => {
  it('POST faults replaces the config, with defaults for what it omits, and takes effect', async () => {
    const sim = await startTestSimulator({ faults: { latencyMs: 5 } });
    const posted = await postJson(sim, 'faults', { rate: 1, kinds: ['http503'] });
    expect(posted.status).toBe(200);
    const defaults = { latencyMs: 0, jitterMs: 0, slowMs: 60_000, retryAfterSeconds: 1 };
    expect(posted.body).toEqual({ rate: 1, kinds: ['http503'], ...defaults });
    expect((await getJson(`${sim.url}/__simulator/faults`)).body).toEqual(posted.body);
    expect((await fetch(apiUrl(sim, '/v2/schedules/'))).status).toBe(503);
  });

  it('POST quirks replaces the quirks over the defaults', async () => {
    const sim = await startTestSimulator();
    const posted = await postJson(sim, 'quirks', { doubleComma: 0 });
    expect(posted.body).toEqual({ ...DEFAULT_QUIRKS, doubleComma: 0 });
    expect((await getJson(`${sim.url}/__simulator/quirks`)).body).toEqual(posted.body);
  });

  it('answers 400 with a reason to bad input, and changes nothing', async () => {
    const sim = await startTestSimulator();
    const bad: [string, unknown][] = [
      ['faults', { rate: 2 }],
      ['faults', { kinds: ['meteor'] }],
      ['faults', { kinds: [] }],
      ['faults', { rat: 0.5 }],
      ['quirks', { doubleComma: -1 }],
      ['cancel-event', { eventId: 'x' }],
      ['rename-driver', { driverId: 1 }],
    ];
    for (const [route, body] of bad) {
      const res = await postJson(sim, route, body);
      expect(res.status, `${route} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.error, route).toEqual(expect.any(String));
    }
    const notJson = await fetch(`${sim.url}/__simulator/faults`, { method: 'POST', body: '{rate:' });
    expect(notJson.status).toBe(400);
    expect((await getJson(`${sim.url}/__simulator/faults`)).body).toMatchObject({ rate: 0 });
  });

  it('answers 404 to an unknown admin route and 405 to a wrong method', async () => {
    const sim = await startTestSimulator();
    expect((await fetch(`${sim.url}/__simulator/nothing`)).status).toBe(404);
    expect((await fetch(`${sim.url}/__simulator/world`, { method: 'POST' })).status).toBe(405);
  });
});
