import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DEFAULT_SOURCE } from '../../src/db/schema/columns.js';
import { createSilentLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { createWorker } from '../../src/worker/worker.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

import { untilOwned, workerConfig } from './helpers.js';
import { waitForCount } from './process.js';

describe('worker start-up', () => {
  let db: TestDatabase;
  let sim: RunningSimulator;
  beforeAll(async () => {
    [db, sim] = await Promise.all([createTestDatabase(), startSimulator({ scale: 'tiny', seed: 2 })]);
  });
  afterAll(async () => {
    await sim?.close();
    await db?.drop();
  });

  it('marks runs left running by a dead process abandoned at their last heartbeat, and only those: the rule is the heartbeat\'s age', async () => {
    // `live` and `full` beat last a minute ago; `season` beats as late as the server's clock can
    // tell (its process, however cut off, would still be within its lease).
    await db.pool.query(
      `INSERT INTO pitwall.sync_runs (job, trigger, status, host, pid, started_at, heartbeat_at, requests, rows_inserted, scopes_done, scopes_total)
       VALUES ('live', 'cron', 'running', 'gone', 1, now() - interval '2 minutes', now() - interval '1 minute', 40, 300, 12, 20),
              ('full', 'cron', 'running', 'gone', 2, now() - interval '2 minutes', now() - interval '1 minute', 0, 0, 0, 0),
              ('season', 'cron', 'running', 'slow', 3, now() - interval '2 minutes', now() + interval '1 hour', 0, 0, 0, 0)`,
    );
    const worker = createWorker({ pool: db.pool, config: workerConfig(db, sim), logger: createSilentLogger() });
    try {
      await worker.start();
      // The dead runs are closed as the source is taken (by start()'s first beat, or the next one
      // when the database stalled through the first).
      await untilOwned(worker, [DEFAULT_SOURCE]);
      await waitForCount(db.pool, `SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE status <> 'running'`, 2);
      const { rows } = await db.pool.query(
        `SELECT job, status, finished_at = heartbeat_at AS at_heartbeat, requests, rows_inserted, scopes_done, error
           FROM pitwall.sync_runs ORDER BY job`,
      );
      expect(rows.map((r) => [r.job, r.status]), JSON.stringify(rows)).toEqual([
        ['full', 'abandoned'],
        ['live', 'abandoned'],
        ['season', 'running'],
      ]);
      expect(rows[1]).toMatchObject({ at_heartbeat: true, requests: 40, rows_inserted: 300, scopes_done: 12 });
      expect(rows[1].error).toMatch(/pid 1 on gone.*stopped reporting/);
    } finally {
      await worker.stop();
    }
  });
});
