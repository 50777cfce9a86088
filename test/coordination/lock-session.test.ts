import { describe, expect, it, onTestFinished } from 'vitest';

import { LEASE_MS } from '../../src/coordination/lease.js';
import { createPool } from '../../src/db/pool.js';
import { tryRunLocks } from '../../src/sync/sql/job-lock.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { useDatabase } from '../helpers/fixture.js';
import { openLockSession } from '../helpers/lock-session.js';
import { terminateBackends } from '../helpers/terminate-backends.js';

/**
 * The lock session against a real PostgreSQL: the locks it holds are the ones pg_locks shows, they
 * go with its connection, and the server is told to drop it when its machine is lost.
 */
describe('the lock session', () => {
  const db = useDatabase('postgres');

  const open = () => openLockSession(db.pool);
  /** The sessions that hold a job lock (namespace 730511) in this test's database, by pid. */
  const jobLockHolders = async () =>
    (
      await db.pool.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = 730511 AND granted
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      )
    ).rows.map((r) => r.pid);

  it('asks the server to drop it 25 s after its machine goes silent, and names its process', async () => {
    const session = await open();
    const [row] = await session.query<{ idle: string; interval: string; count: string; app: string; silent: string; lockWait: string }>(
      `SELECT current_setting('tcp_keepalives_idle') AS idle, current_setting('tcp_keepalives_interval') AS interval,
              current_setting('tcp_keepalives_count') AS count, current_setting('application_name') AS app,
              current_setting('idle_session_timeout') AS silent, current_setting('lock_timeout') AS "lockWait"`,
    );
    // The server also ends it after 20 s of silence (a stopped or cut-off holder), and no statement
    // on it waits more than 2 s for a row lock.
    expect(row).toEqual({ idle: '10', interval: '5', count: '3', app: expect.stringMatching(new RegExp(`^pitwall worker ${process.pid}@`)), silent: '20s', lockWait: '2s' });
  });

  it('takes a run\'s job locks together or not at all (tryRunLocks), closes the job\'s stale rows, and gives them back', async () => {
    const session = await open();
    const other = await open();
    await db.pool.query(`INSERT INTO pitwall.sync_runs (source, job, trigger, status, started_at) VALUES ('default', 'full', 'cron', 'running', now() - interval '1 hour')`);
    const full = await tryRunLocks(session, 'default', ['full'], 'full');
    expect(full).not.toBeNull();
    const { rows } = await db.pool.query<{ status: string }>(`SELECT status FROM pitwall.sync_runs`);
    expect(rows).toEqual([{ status: 'abandoned' }]);
    // A rebuild takes every job's lock: refused while one is held elsewhere, and holds none after.
    expect(await tryRunLocks(other, 'default', ['full', 'season', 'live'], 'rebuild')).toBeNull();
    expect(new Set(await jobLockHolders()).size).toBe(1);
    await full!.release();
    expect(await jobLockHolders()).toEqual([]);
    const all = await tryRunLocks(other, 'default', ['full', 'season', 'live'], 'rebuild');
    expect(all).not.toBeNull();
    expect(await jobLockHolders()).toHaveLength(3);
  });

  it('says it is lost when its connection is cut, and every lock of it is free at once', async () => {
    const session = await open();
    const lock = await tryRunLocks(session, 'default', ['live'], 'live');
    const [{ pid } = { pid: 0 }] = await session.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await terminateBackends(db.pool, 'pid = $1', [pid]);
    await expect.poll(() => session.lost.aborted, { timeout: 5_000 }).toBe(true);
    expect(lock!.lost.aborted).toBe(true);
    expect(() => lock!.held()).toThrow(/lost the lock session/);
    expect(await jobLockHolders()).toEqual([]);
    await expect(session.query('SELECT 1')).rejects.toThrow(/lost the lock session/);
  });

  it('is lost at its own deadline when its link stops answering: the query waiting on it fails and valid() says no', async () => {
    const proxy = await startFaultProxy(db.url);
    onTestFinished(() => proxy.close());
    const pool = createPool(proxy.url(db.url), { max: 1 });
    onTestFinished(() => pool.end());
    // The real lease: a shorter one could run out during the open itself on a busy machine.
    const opening = performance.now();
    const session = await openLockSession(pool);
    expect(session.valid()).toBe(true);
    proxy.fault('stall');
    const pending = session.query('SELECT 1').then(
      () => 'answered',
      () => 'failed',
    );
    // The event itself, whenever the deadline passes: no guess at how long that takes.
    await new Promise((resolve) => session.lost.addEventListener('abort', resolve, { once: true }));
    // Never before the deadline: the last answer's send came after the open began.
    expect(performance.now() - opening).toBeGreaterThanOrEqual(LEASE_MS);
    expect(session.valid()).toBe(false);
    expect(await pending).toBe('failed');
    expect(String((session.lost.reason as Error).message)).toMatch(new RegExp(`no answer from the database within ${LEASE_MS} ms`));
  });
});
