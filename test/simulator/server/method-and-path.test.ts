import { describe, expect, it } from 'vitest';

import { apiUrl, startTestSimulator } from './helpers.js';

describe('methods and paths', () => {
  it('answers 405 with Allow: GET to anything but GET on an API path', async () => {
    const sim = await startTestSimulator();
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const res = await fetch(apiUrl(sim, '/v2/schedules/'), { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow'), method).toBe('GET');
    }
  });

  it('answers 404 JSON to an unknown path', async () => {
    const sim = await startTestSimulator();
    for (const path of ['/v2/nothing/', '/v1/schedules/', '/']) {
      const res = await fetch(apiUrl(sim, path));
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toBe('application/json; charset=utf-8');
      expect(await res.json(), path).toHaveProperty('error');
    }
  });

  it('answers 404 to a path without its trailing slash', async () => {
    const sim = await startTestSimulator();
    expect((await fetch(apiUrl(sim, '/v2/schedules'))).status).toBe(404);
  });

  it('accepts filter values URL-encoded or not', async () => {
    const sim = await startTestSimulator();
    const year = String(sim.world.summary().years[0]);
    const base = `${sim.url}/v2/schedules/?key=${sim.key}`;
    const raw = await (await fetch(`${base}&ScheduleYear=${year}&StartDate=1/1/${year}`)).text();
    // The digit d percent-encoded is %3d.
    const encodedYear = [...year].map((d) => `%3${d}`).join('');
    const encoded = await (await fetch(`${base}&ScheduleYear=${encodedYear}&StartDate=1%2F1%2F${year}`)).text();
    expect(JSON.parse(raw)).toMatchObject({ RequestValid: 1 });
    expect(JSON.parse(raw).ItemsReturned).toBeGreaterThan(0);
    expect(encoded).toBe(raw);
  });
});
