import { describe, expect, it } from 'vitest';

import { createSilentLogger } from '../../src/log.js';
import { loadStatusPage } from '../../src/observability/status-page/data.js';
import { renderStatusPage } from '../../src/observability/status-page/html.js';
import { runSync } from '../../src/sync/run.js';
import { useWarehouse } from '../helpers/fixture.js';
import { testConfig } from '../helpers/sync.js';

/** The page's headline, as a person reads it: its text without markup. */
const headlineOf = async (pool: Parameters<typeof loadStatusPage>[0]) => {
  const html = renderStatusPage(await loadStatusPage(pool, { secrets: [] }));
  const text = (id: string) => (new RegExp(`<(p|div) [^>]*id="${id}">(.*?)</\\1>`, 's').exec(html)?.[2] ?? '').replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();
  return { headline: text('headline'), filling: text('filling'), red: /class="behind" id="headline"/.test(html) };
};

describe('the status page\'s headline says how each job stands now', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 31 });
  const run = (job: 'full' | 'live', apiKey = sim.key) => runSync({ pool: db.pool, config: { ...testConfig(db, sim), apiKey }, logger: createSilentLogger() }, { job });

  it('says the warehouse is still filling while its first run goes, and nothing has succeeded', async () => {
    expect(await headlineOf(db.pool)).toEqual({ headline: 'No run has finished yet.', filling: '', red: false });
    // A run as a killed-at-start process would leave it: going, nothing succeeded yet.
    await db.pool.query(`INSERT INTO pitwall.sync_runs (job, trigger, status, started_at, heartbeat_at) VALUES ('full', 'catch-up', 'running', now(), now())`);
    const { filling } = await headlineOf(db.pool);
    await db.pool.query(`DELETE FROM pitwall.sync_runs`);
    expect(filling).toMatch(/^The warehouse is still filling: no run has succeeded yet, so the analytics views return few or no rows/);
  });

  it('names a job whose latest finished run failed, and forgets the failure once the next run of it succeeds', async () => {
    expect((await run('full')).status).toBe('succeeded');
    const failed = await run('live', 'wrong-key');
    expect(failed.status).toBe('failed');
    expect(await headlineOf(db.pool)).toMatchObject({ headline: expect.stringMatching(new RegExp(`^Not up to date now: live: its latest finished run \\(${failed.runId}\\) failed; last success never$`)), red: true });
    expect((await run('live')).status).toBe('succeeded');
    expect(await headlineOf(db.pool)).toEqual({ headline: 'Every job\'s latest finished run succeeded.', filling: '', red: false });
  });
});
