import { beforeAll, describe, expect, it } from 'vitest';

import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';

/**
 * Unchanged scopes are recorded in batches (ScopeTouches), written when a batch fills, when a
 * phase ends, and when the run ends any other way. The tiny world's full job is one phase of
 * fewer requests than a batch holds, so here only the end of the run writes them.
 */
describe('scopes found unchanged by a run', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 23 });
  beforeAll(async () => {
    expect((await syncOnce(db, sim)).status).toBe('succeeded');
  });

  /** Scopes the run recorded as checked and good (a failed scope records the run too, as failed). */
  const checkedBy = async (runId: number): Promise<number> =>
    (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pitwall.sync_state WHERE last_run_id = $1 AND status = 'ok'`, [runId])).rows[0]!
      .n;

  it('are recorded as checked by a run that fails later on', async () => {
    const env = { PITWALL_RETRY_BASE_MS: '5', PITWALL_MAX_ATTEMPTS: '1', PITWALL_MAX_CONSECUTIVE_FAILURES: '2', PITWALL_CONCURRENCY: '1' };
    let down = false;
    try {
      const summary = await syncOnce(db, sim, {
        env,
        onProgress: ({ done }) => {
          if (done === 20 && !down) {
            down = true;
            sim.setFaults({ rate: 1, kinds: ['http503'], retryAfterSeconds: 0 });
          }
        },
      });
      expect(summary.status).toBe('failed');
      expect(summary.requests).toBeLessThan(200);
      // Nothing upstream changed since the first sync: every scope answered before the outage was unchanged.
      expect(summary.scopes.loaded).toBe(0);
      expect(summary.scopes.unchanged).toBeGreaterThanOrEqual(20);
      expect(await checkedBy(summary.runId)).toBe(summary.scopes.unchanged);
    } finally {
      sim.setFaults({});
    }
  });

  it('are recorded as checked by a run that succeeds', async () => {
    const summary = await syncOnce(db, sim);
    expect(summary.status).toBe('succeeded');
    // The scopes that failed in the run before have no good hash on record, so they are loaded again.
    expect(summary.scopes.unchanged + summary.scopes.loaded).toBe(summary.requests);
    expect(summary.scopes.unchanged).toBeGreaterThan(summary.scopes.loaded);
    expect(await checkedBy(summary.runId)).toBe(summary.requests);
  });
});
