import { afterAll, describe, expect, it } from 'vitest';

import { createSilentLogger } from '../../src/log.js';
import type { StatusPageData } from '../../src/observability/status-page/data.js';
import type { Source } from '../../src/sources.js';
import { createWorker } from '../../src/worker/worker.js';
import { useWarehouse } from '../helpers/fixture.js';

import { simulatorClock, untilOwned, workerConfig } from './helpers.js';

const NAMES = ['track-a', 'track-b'];

describe('a worker of two sources', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 3, sites: 2 });
  const stops: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const stop of stops) await stop();
  });

  it('shows each source with its own schedules on the status page, and its own last success in /metrics', async () => {
    const sources: Source[] = sim.sites.map((site, i) => ({
      name: NAMES[i]!,
      config: { ...workerConfig(db, sim, { PITWALL_HTTP_PORT: '0', PITWALL_CRON_LIVE: i === 0 ? '0 0 1 1 *' : '0 0 2 2 *' }), apiKey: site.key },
    }));
    const worker = createWorker({ pool: db.pool, config: sources[0]!.config, logger: createSilentLogger(), now: simulatorClock(sim) }, { sources });
    stops.push(() => worker.stop());
    await worker.start();
    await untilOwned(worker, NAMES);
    // The second source's key refused: its run fails, and it has no last success to show.
    sim.revokeKey(sim.sites[1]!.key);
    // Whole summaries, so that a run that ends otherwise says why.
    expect(await worker.runJob('full', 'manual', 'track-a')).toMatchObject({ status: 'succeeded' });
    expect(await worker.runJob('live', 'manual', 'track-b')).toMatchObject({ status: 'failed' });

    const page = JSON.parse(await (await fetch(`${worker.url}/status.json`)).text()) as StatusPageData;
    expect(page.sources.map((s) => s.source)).toEqual(NAMES);
    // The worker alone at work owns both sources, and says so by its process.
    expect(page.sources.map((s) => s.owner)).toEqual(NAMES.map(() => expect.stringMatching(new RegExp(`^${process.pid}@`))));
    const liveNext = page.sources.map((s) => s.next_runs.live);
    expect(liveNext[0]).toMatch(/-01-01T00:00:00/);
    expect(liveNext[1]).toMatch(/-02-02T00:00:00/);

    const metrics = await (await fetch(`${worker.url}/metrics`)).text();
    expect(metrics).toMatch(/^pitwall_last_success_timestamp_seconds\{source="track-a",job="full"\} \d/m);
    expect(metrics).not.toMatch(/pitwall_last_success_timestamp_seconds\{source="track-b"/);
    expect(metrics).not.toContain('source="default"');
  });
});
