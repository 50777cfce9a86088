import { describe, expect, it } from 'vitest';

import { createSilentLogger } from '../../src/log.js';
import { runSync } from '../../src/sync/run.js';
import { useWarehouse } from '../helpers/fixture.js';
import { testConfig } from '../helpers/sync.js';

describe('analytics.source_freshness', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 37 });
  const view = async () =>
    (await db.pool.query(`SELECT source, job, last_success_at IS NOT NULL AS synced, last_run_status, running_now, still_filling FROM analytics.source_freshness`)).rows;

  it('says a source is still filling while its first run goes, then when each job last succeeded', async () => {
    await db.pool.query(`INSERT INTO pitwall.sync_runs (job, trigger, status, started_at, heartbeat_at) VALUES ('full', 'catch-up', 'running', now(), now())`);
    expect(await view()).toEqual([
      { source: 'default', job: 'full', synced: false, last_run_status: 'running', running_now: true, still_filling: true },
      { source: 'default', job: 'season', synced: false, last_run_status: null, running_now: false, still_filling: true },
      { source: 'default', job: 'live', synced: false, last_run_status: null, running_now: false, still_filling: true },
    ]);
    await db.pool.query(`DELETE FROM pitwall.sync_runs`);
    expect((await runSync({ pool: db.pool, config: testConfig(db, sim), logger: createSilentLogger() }, { job: 'full' })).status).toBe('succeeded');
    expect((await view()).map((r) => [r.job, r.synced, r.last_run_status, r.still_filling])).toEqual([
      ['full', true, 'succeeded', false],
      ['season', false, null, false],
      ['live', false, null, false],
    ]);
  });
});
