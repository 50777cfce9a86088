import type pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';

import { createPool, endPool } from '../../src/db/pool.js';
import { createLogger } from '../../src/log.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { useDatabase } from '../helpers/fixture.js';
import { terminateBackends } from '../helpers/terminate-backends.js';

/** Whether a pg client's socket is gone (destroyed, so it holds no process open). */
const socketGone = (client: pg.PoolClient) => (client as unknown as { connection: { stream: { destroyed: boolean } } }).connection.stream.destroyed;

describe('a pitwall pool', () => {
  const db = useDatabase();

  it('survives the backend of a checked-out client dying while nobody listens on that client: its next query fails, nothing is thrown', async () => {
    const pool = createPool(db.url, { max: 2 });
    try {
      const client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // The FATAL the backend sends arrives with no query in flight: an 'error' event on a client
      // nobody here listens to. Unheard, it would be an uncaught exception, which fails this file.
      await terminateBackends(db.pool, 'pid = $1', [rows[0]!.pid]);
      for (let i = 0; i < 50; i++) {
        const alive = await db.pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [rows[0]!.pid]);
        if (alive.rowCount === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      await expect(client.query('SELECT 1')).rejects.toThrow(/not queryable|terminat/);
      client.release(new Error('backend terminated'));
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('fails a connect whose link stops answering between the handshake and its first statement, instead of waiting forever', async () => {
    const proxy = await startFaultProxy(db.url);
    onTestFinished(() => proxy.close());
    // Stalled once the server has said it is ready: the pool's own first statement (onConnect's
    // SET) is the one that gets no answer, after pg-pool's connection timeout has ended.
    proxy.fault('stall', { sticky: true, atReady: true });
    const pool = createPool(proxy.url(db.url), { max: 1, deadlineMs: 1_000 });
    onTestFinished(() => endPool(pool));
    await expect(pool.query('SELECT 1')).rejects.toThrow();
  });

  it('ends within its bound when its connections, idle and checked out, stopped answering, and leaves no socket open', async () => {
    const proxy = await startFaultProxy(db.url);
    onTestFinished(() => proxy.close());
    const pool = createPool(proxy.url(db.url), { max: 2 });
    const busy = await pool.connect();
    const idle = await pool.connect();
    idle.release();
    proxy.fault('stall');
    // pg-pool asks the idle one to end and forgets it; pg then waits for the server's goodbye, which
    // never comes: only the bound ends its socket.
    await endPool(pool, 200);
    expect({ busy: socketGone(busy), idle: socketGone(idle) }).toEqual({ busy: true, idle: true });
    busy.release();
  });

  it('says once that its idle connections were ended, as a server restart ends them all at once, and each loss at debug', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', destination: { write: (l: string) => void lines.push(l) } });
    const pool = createPool(db.url, { max: 3, logger, applicationName: 'pitwall-idle-loss' });
    onTestFinished(() => endPool(pool));
    const clients = await Promise.all([pool.connect(), pool.connect(), pool.connect()]);
    for (const c of clients) c.release();
    await terminateBackends(db.pool, 'application_name = $1', ['pitwall-idle-loss']);
    // Each idle client's loss is an 'error' event on the pool, which then drops the client.
    while (pool.totalCount > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const losses = lines.map((l) => JSON.parse(l) as { level: number; msg: string; code?: string }).filter((l) => l.msg === 'idle database connection failed');
    expect(losses.map((l) => ({ level: l.level, code: l.code }))).toEqual([
      { level: 40, code: '57P01' },
      { level: 20, code: '57P01' },
      { level: 20, code: '57P01' },
    ]);
  });
});
