import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createPool } from '../../src/db/pool.js';
import { DEFAULT_SOURCE } from '../../src/db/schema/columns.js';
import { createSilentLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { tryJobLock } from '../../src/sync/sql/job-lock.js';
import { createWorker } from '../../src/worker/worker.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

import { workerConfig } from './helpers.js';

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

  it('marks runs left running by a dead process abandoned at their last heartbeat, but not those of a job another process holds', async () => {
    // `live` and `full` beat last a minute ago; `season` beat just now (its lock is free for a
    // moment while its connection is replaced, say): only the heartbeat's age tells it apart.
    await db.pool.query(
      `INSERT INTO pitwall.sync_runs (job, trigger, status, host, pid, started_at, heartbeat_at, requests, rows_inserted, scopes_done, scopes_total)
       VALUES ('live', 'cron', 'running', 'gone', 1, now() - interval '2 minutes', now() - interval '1 minute', 40, 300, 12, 20),
              ('full', 'cron', 'running', 'alive', 2, now() - interval '2 minutes', now() - interval '1 minute', 0, 0, 0, 0),
              ('season', 'cron', 'running', 'slow', 3, now() - interval '2 minutes', now(), 0, 0, 0, 0)`,
    );
    // Another process is in the middle of `full`: it holds the job's lock on its own connection.
    const other = createPool(db.url, { max: 1 });
    const held = await tryJobLock(other, DEFAULT_SOURCE, 'full');
    expect(held).not.toBeNull();
    const worker = createWorker({ pool: db.pool, config: workerConfig(db, sim), logger: createSilentLogger() });
    try {
      await worker.start();
      const { rows } = await db.pool.query(
        `SELECT job, status, finished_at = heartbeat_at AS at_heartbeat, requests, rows_inserted, scopes_done, error
           FROM pitwall.sync_runs ORDER BY job`,
      );
      expect(rows.map((r) => [r.job, r.status])).toEqual([
        ['full', 'running'],
        ['live', 'abandoned'],
        ['season', 'running'],
      ]);
      expect(rows[1]).toMatchObject({ at_heartbeat: true, requests: 40, rows_inserted: 300, scopes_done: 12 });
      expect(rows[1].error).toMatch(/pid 1 on gone.*stopped reporting/);
    } finally {
      await worker.stop();
      await held?.release();
      await other.end();
    }
  });
});
