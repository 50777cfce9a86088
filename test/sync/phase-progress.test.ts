import { describe, expect, it } from 'vitest';

import { createLogger } from '../../src/log.js';
import { rowsWritten } from '../../src/sync/counters.js';
import { runSync } from '../../src/sync/run.js';
import { useWarehouse } from '../helpers/fixture.js';
import { testConfig } from '../helpers/sync.js';

/**
 * Each phase of a run that ends says so in the log with the run's figures so far, beside the
 * progress lines a worker writes every 30 s (test/sync/heartbeat-progress.test.ts): a job of
 * several phases (`live`) is otherwise silent between them.
 */
describe('the line at each phase end', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 3 });

  const run = async (job: 'full' | 'live') => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ level: 'info', destination: { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) } });
    const summary = await runSync({ pool: db.pool, config: testConfig(db, sim), logger }, { job });
    return { summary, phases: lines.filter((l) => String(l.msg).startsWith('phase ')) };
  };

  it('gives the scopes, requests and rows of the run so far, once per phase that had work', async () => {
    const full = await run('full');
    expect(full.summary.status).toBe('succeeded');
    const written = rowsWritten(full.summary.tables);
    expect(written).toBeGreaterThan(0);
    expect(full.phases).toEqual([
      expect.objectContaining({
        runId: full.summary.runId,
        phase: 'walk',
        scopesDone: full.summary.requests,
        scopesFound: full.summary.requests,
        requests: full.summary.requests,
        rowsWritten: written,
        msg: expect.stringMatching(new RegExp(`^phase walk done: ${full.summary.requests} of ${full.summary.requests} scopes found so far, ${full.summary.requests} requests, ${written} rows written; `)),
      }),
    ]);

    // After a full, the feed names nothing new: the feed phase ends, the two after it have nothing to do.
    const live = await run('live');
    expect(live.summary.status).toBe('succeeded');
    expect(live.phases.map((l) => [l.phase, l.scopesDone, l.requests])).toEqual([['feed', 1, 1]]);
  });
});
