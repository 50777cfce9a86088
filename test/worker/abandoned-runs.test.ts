import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createPool } from '../../src/db/pool.js';
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

  it('marks runs left running by a dead process abandoned, but not those of a job another process holds', async () => {
    await db.pool.query(
      `INSERT INTO pitwall.sync_runs (job, trigger, status, host, pid) VALUES ('live', 'cron', 'running', 'gone', 1), ('full', 'cron', 'running', 'alive', 2)`,
    );
    // Another process is in the middle of `full`: it holds the job's lock on its own connection.
    const other = createPool(db.url, { max: 1 });
    const held = await tryJobLock(other, 'full');
    expect(held).not.toBeNull();
    const worker = createWorker({ pool: db.pool, config: workerConfig(db, sim), logger: createSilentLogger() });
    try {
      await worker.start();
      const { rows } = await db.pool.query(`SELECT job, status, finished_at IS NOT NULL AS finished FROM pitwall.sync_runs ORDER BY job`);
      expect(rows).toEqual([
        { job: 'full', status: 'running', finished: false },
        { job: 'live', status: 'abandoned', finished: true },
      ]);
    } finally {
      await worker.stop();
      await held?.release();
      await other.end();
    }
  });
});
