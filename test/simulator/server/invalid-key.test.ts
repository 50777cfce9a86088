import { describe, expect, it } from 'vitest';

import { startTestSimulator } from './helpers.js';

const REFUSED = { RequestValid: 0, ItemsReturned: 0, Schedules: [], RequestCached: 0 };

describe('a missing or wrong key', () => {
  it('answers HTTP 200 with RequestValid 0 and an empty array by default', async () => {
    const sim = await startTestSimulator();
    for (const query of ['', '?key=not-the-key', '?KEY=not-the-key', '?keys=sim-pitwall-key']) {
      const res = await fetch(`${sim.url}/v2/schedules/${query}`);
      expect(res.status, query).toBe(200);
      expect(await res.json(), query).toMatchObject(REFUSED);
    }
  });

  it('answers 401 with the same body in http-error mode', async () => {
    const sim = await startTestSimulator({ invalidRequest: 'http-error' });
    const res = await fetch(`${sim.url}/v2/schedules/?key=not-the-key`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject(REFUSED);
  });

  it('is refused before the filters are looked at', async () => {
    const sim = await startTestSimulator({ invalidRequest: 'http-error' });
    const res = await fetch(`${sim.url}/v2/schedules/results/`);
    expect(res.status).toBe(401);
  });

  it('accepts a configured key', async () => {
    const sim = await startTestSimulator({ key: 'other-key' });
    const body = (await (await fetch(`${sim.url}/v2/schedules/?key=other-key`)).json()) as { RequestValid: number };
    expect(sim.key).toBe('other-key');
    expect(body.RequestValid).toBe(1);
  });

  it('reads the key parameter whatever the case of its name, as the ASP.NET upstream does', async () => {
    const sim = await startTestSimulator();
    for (const name of ['key', 'Key', 'KEY', 'kEy']) {
      const body = (await (await fetch(`${sim.url}/v2/schedules/?${name}=${sim.key}`)).json()) as { RequestValid: number };
      expect(body.RequestValid, name).toBe(1);
    }
  });

  it('keeps a differently spelled key out of the filters the world sees', async () => {
    const sim = await startTestSimulator();
    const lower = await (await fetch(`${sim.url}/v2/schedules/?key=${sim.key}`)).text();
    const upper = await (await fetch(`${sim.url}/v2/schedules/?KEY=${sim.key}`)).text();
    expect(upper).toBe(lower);
  });
});
