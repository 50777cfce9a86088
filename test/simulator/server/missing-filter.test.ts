import { describe, expect, it } from 'vitest';

import { apiUrl, startTestSimulator } from './helpers.js';

describe('a request without the filters its endpoint needs', () => {
  it('answers HTTP 200 with RequestValid 0 and an empty array by default', async () => {
    const sim = await startTestSimulator();
    for (const path of ['/v2/schedules/results/', '/v2/points/']) {
      const res = await fetch(apiUrl(sim, path));
      const body = (await res.json()) as Record<string, unknown>;
      expect(res.status, path).toBe(200);
      expect(body.RequestValid, path).toBe(0);
      expect(body.ItemsReturned, path).toBe(0);
      const arrayKey = path === '/v2/points/' ? 'Points' : 'Classes';
      const keys = ['RequestValid', 'ItemsReturned', arrayKey, 'RequestCached', 'RequestCachedTicks'];
      expect(Object.keys(body), path).toEqual(keys);
      expect(body[arrayKey], path).toEqual([]);
    }
  });

  it('answers 400 with the same body in http-error mode', async () => {
    const sim = await startTestSimulator({ invalidRequest: 'http-error' });
    const res = await fetch(apiUrl(sim, '/v2/schedules/results/'));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ RequestValid: 0, ItemsReturned: 0, Classes: [] });
  });
});
