import { describe, expect, it } from 'vitest';

import { MAX_SITES, siteKey } from '../../../src/simulator/options.js';
import { createWorld } from '../../../src/simulator/world/index.js';
import { DEFAULT_QUIRKS } from '../../../src/simulator/world/types.js';

import { apiUrl, getJson, startTestSimulator } from './helpers.js';

const scheduleIds = async (url: string): Promise<number[]> =>
  ((await getJson(url)).body.Schedules as { ScheduleId: number | string }[]).map((s) => Number(s.ScheduleId));

describe(`a simulator of ${MAX_SITES} sites`, () => {
  it('gives each key its own site\'s world, counts requests by site, and refuses a key no site has', async () => {
    const sim = await startTestSimulator({ sites: MAX_SITES, scale: 'tiny', seed: 7 });
    expect(sim.sites.map((s) => s.key)).toEqual(Array.from({ length: MAX_SITES }, (_, i) => siteKey(i + 1)));
    for (const n of [1, 500, MAX_SITES - 1, MAX_SITES]) {
      // What the site's own world lists, built apart from the server.
      const own = createWorld({ seed: 7, scale: 'tiny', site: n, sites: MAX_SITES }).render('/v2/schedules/', new URLSearchParams(), DEFAULT_QUIRKS);
      if (own.kind !== 'ok') throw new Error(`site ${n}'s world does not list its schedules`);
      const expected = (own.items as { ScheduleId: number | string }[]).map((s) => Number(s.ScheduleId));
      expect(await scheduleIds(apiUrl(sim, '/v2/schedules/', {}, siteKey(n))), `site ${n}`).toEqual(expected);
    }
    const refused = await getJson(apiUrl(sim, '/v2/schedules/', {}, siteKey(MAX_SITES + 1)));
    expect(refused.body.RequestValid).toBe(0);
    const bySite = sim.requests().bySite;
    expect(Object.keys(bySite).map(Number).sort((a, b) => a - b)).toEqual([0, 1, 500, MAX_SITES - 1, MAX_SITES]);
    expect(bySite[MAX_SITES]?.requests).toBe(1);
  });

  it(`is refused past ${MAX_SITES} sites, naming the bound`, async () => {
    await expect(startTestSimulator({ sites: MAX_SITES + 1, scale: 'tiny' })).rejects.toThrow(String(MAX_SITES));
  });
});
