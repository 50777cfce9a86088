import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

import { transactionRetryDelayMs, withTransaction } from '../../src/db/transaction.js';
import { useDatabase } from '../helpers/fixture.js';

describe('transactionRetryDelayMs', () => {
  it('grows from 25-50 ms, stays within the upper half of its ceiling, and never passes 1 s', () => {
    expect(transactionRetryDelayMs(1, () => 0)).toBe(25);
    expect(transactionRetryDelayMs(1, () => 1)).toBe(50);
    expect(transactionRetryDelayMs(3, () => 1)).toBe(200);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.double({ min: 0, max: 1, noNaN: true }), (attempt, r) => {
        const ceiling = Math.min(1000, 50 * 2 ** (attempt - 1));
        const delay = transactionRetryDelayMs(attempt, () => r);
        return delay >= Math.floor(ceiling / 2) && delay <= ceiling;
      }),
    );
  });
});

describe('withTransaction retries', () => {
  const db = useDatabase();
  beforeAll(async () => {
    await db.pool.query('CREATE TABLE t (id int PRIMARY KEY, v int); INSERT INTO t VALUES (1, 0), (2, 0)');
  });

  it('reruns the transaction that lost a real deadlock, which then succeeds', async () => {
    const other = await db.pool.connect();
    let calls = 0;
    const retried: string[] = [];
    try {
      // The other side waits 10 s before looking for deadlocks, so ours (100 ms) is the victim.
      await other.query("SET deadlock_timeout = '10s'");
      await other.query('BEGIN');
      await other.query('UPDATE t SET v = v + 1 WHERE id = 2');
      const ours = withTransaction(
        db.pool,
        async (c) => {
          calls += 1;
          await c.query("SET LOCAL deadlock_timeout = '100ms'");
          await c.query('UPDATE t SET v = v + 10 WHERE id = 1');
          if (calls === 1) setTimeout(() => void other.query('UPDATE t SET v = v + 1 WHERE id = 1').then(() => other.query('COMMIT')), 20);
          await c.query('UPDATE t SET v = v + 10 WHERE id = 2');
        },
        { onRetry: (err) => retried.push(err.sqlstate ?? '') },
      );
      await ours;
    } finally {
      other.release();
    }
    expect(retried).toEqual(['40P01']);
    expect((await db.pool.query('SELECT v FROM t ORDER BY id')).rows).toEqual([{ v: 11 }, { v: 11 }]);
  });

  it('gives up after the configured attempts, and stops early once aborted', async () => {
    const serialization = "DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$";
    let calls = 0;
    const limited = withTransaction(db.pool, async (c) => void (calls += 1, await c.query(serialization)), { attempts: 2 });
    await expect(limited).rejects.toMatchObject({ sqlstate: '40001', retryable: true });
    expect(calls).toBe(2);

    const controller = new AbortController();
    calls = 0;
    const aborted = withTransaction(db.pool, async (c) => void (calls += 1, await c.query(serialization)), {
      attempts: 5,
      signal: controller.signal,
      onRetry: () => controller.abort(new Error('shutting down')),
    });
    await expect(aborted).rejects.toThrow('shutting down');
    expect(calls).toBe(1);
  });
});
