import { describe, expect, it } from 'vitest';

import { createLogger } from '../../src/log.js';
import { RunCounters } from '../../src/sync/counters.js';
import { HeartbeatGroup } from '../../src/sync/heartbeat.js';
import { insertRun } from '../../src/sync/sql/sync-runs.js';
import { useDatabase } from '../helpers/fixture.js';
import { openLockSession } from '../helpers/lock-session.js';

/**
 * A worker's long run says how far it has come in the log about every 30 s (PROGRESS_LOG_MS),
 * at a beat: scopes done of found so far, requests, rows written and an ETA. The clock is
 * injected; the beats are real statements on a real lock session.
 */
describe('the progress lines of a running run', () => {
  const db = useDatabase('postgres');

  it('come once per period at a beat, with the figures so far and an ETA once the pace is known', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ level: 'info', destination: { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) } });
    let now = 0;
    const group = new HeartbeatGroup(logger, { progressEveryMs: 30_000, now: () => now });
    const session = await openLockSession(db.pool);
    const runId = await insertRun(db.pool, 'default', 'full', 'cron', 'running');
    const counters = new RunCounters();
    const scopes = { done: 0, total: 4 };
    const beat = group.start({ runId, job: 'full', started: 0, counters, scopes, logger: logger.child({ runId }) });
    const progress = () => lines.filter((l) => String(l.msg).startsWith('progress:'));

    now = 5_000;
    await group.write(session);
    expect(progress()).toEqual([]);

    now = 31_000;
    counters.requests = 120;
    counters.add('results', { inserted: 900, updated: 50 });
    Object.assign(scopes, { done: 120, total: 400 });
    await group.write(session);
    now = 36_000;
    await group.write(session);
    expect(progress()).toEqual([
      expect.objectContaining({
        runId,
        scopesDone: 120,
        scopesFound: 400,
        requests: 120,
        rowsWritten: 950,
        // 280 left at 120 per 31 s.
        etaSeconds: 72,
        msg: 'progress: 120 of 400 scopes found so far, 120 requests, 950 rows written; about 72 s left',
      }),
    ]);

    now = 61_500;
    await group.write(session);
    expect(progress()).toHaveLength(2);
    beat.stop();
    now = 200_000;
    await group.write(session);
    expect(progress()).toHaveLength(2);
    // The beats were written all the same.
    const { rows } = await db.pool.query<{ requests: number }>('SELECT requests FROM pitwall.sync_runs WHERE run_id = $1', [runId]);
    expect(rows).toEqual([{ requests: 120 }]);
  });
});
