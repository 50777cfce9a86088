import { beforeAll, describe, expect, it } from 'vitest';

import { DatabaseError } from '../../src/db/errors.js';
import { withTransaction } from '../../src/db/transaction.js';
import { useDatabase } from '../helpers/fixture.js';
import { terminateBackends } from '../helpers/terminate-backends.js';

describe('withTransaction', () => {
  const db = useDatabase();
  const count = async () => (await db.pool.query('SELECT count(*)::int AS n FROM t')).rows[0].n as number;
  beforeAll(async () => {
    await db.pool.query('CREATE TABLE t (id int PRIMARY KEY)');
  });

  it('commits what fn did and returns its value; rolls back and rethrows fn’s own error as is', async () => {
    expect(await withTransaction(db.pool, async (c) => (await c.query('INSERT INTO t VALUES (1) RETURNING id')).rows[0].id)).toBe(1);
    const bug = new TypeError('bug in fn');
    const failing = withTransaction(db.pool, async (c) => {
      await c.query('INSERT INTO t VALUES (2)');
      throw bug;
    });
    await expect(failing).rejects.toBe(bug);
    expect(await count()).toBe(1);
  });

  it('retries and succeeds when its backend is terminated mid-transaction', async () => {
    let calls = 0;
    const retried: unknown[] = [];
    const value = await withTransaction(
      db.pool,
      async (c) => {
        calls += 1;
        await c.query('INSERT INTO t VALUES (10)');
        if (calls === 1) {
          const pid = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
          const killed = c.query('SELECT pg_sleep(30)');
          // It may reject while the terminate below is still in flight: handle it at once, so it is
          // never an unhandled rejection; the await further down still throws it into withTransaction.
          killed.catch(() => undefined);
          await terminateBackends(db.pool, 'pid = $1', [pid]);
          await killed;
        }
        return calls;
      },
      { onRetry: (err, attempt) => retried.push([err.sqlstate, err.retryable, attempt]) },
    );
    expect(value).toBe(2);
    expect(retried).toEqual([['57P01', true, 1]]);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM t WHERE id = 10')).rows[0].n).toBe(1);
  });

  it('survives a backend terminated while fn is between queries', async () => {
    let calls = 0;
    await withTransaction(db.pool, async (c) => {
      calls += 1;
      if (calls === 1) {
        const pid = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
        // The termination arrives as an 'error' event on an idle, checked-out client: unhandled, it would crash the process.
        const ended = new Promise((resolve) => c.once('end', resolve));
        await terminateBackends(db.pool, 'pid = $1', [pid]);
        await ended;
      }
      await c.query('INSERT INTO t VALUES (20)');
    });
    expect(calls).toBe(2);
  });

  it('throws a fatal DatabaseError for a unique violation without retrying', async () => {
    let calls = 0;
    const dup = withTransaction(db.pool, async (c) => {
      calls += 1;
      await c.query('INSERT INTO t VALUES (1)');
    });
    await expect(dup).rejects.toMatchObject({ name: 'DatabaseError', sqlstate: '23505', retryable: false });
    expect(calls).toBe(1);
  });

  it('reports a transaction that fn let fail and then tried to commit', async () => {
    const swallowed = withTransaction(db.pool, async (c) => {
      await c.query('SELECT 1/0').catch(() => undefined);
    });
    await expect(swallowed).rejects.toBeInstanceOf(DatabaseError);
    await expect(swallowed).rejects.toThrow(/rolled back/);
  });
});
