import type { Socket } from 'node:net';

import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';

import { startFaultProxy } from '../helpers/fault-proxy.js';
import { useDatabase, useResource } from '../helpers/fixture.js';

/** How long a poll may wait for the server to show a change: generous, it returns as soon as it sees it. */
const WAIT = { timeout: 10_000 };

interface Watched {
  settled: boolean;
  /** The value, or the error it rejected with. */
  result: Promise<unknown>;
}

/** A promise's outcome, and whether it has settled yet: a hung query is asserted on without a sleep. */
function watch(promise: Promise<unknown>): Watched {
  const w: Watched = { settled: false, result: promise };
  const settle = (outcome: unknown) => {
    w.settled = true;
    return outcome;
  };
  w.result = promise.then(settle, settle);
  return w;
}

/**
 * The fault proxy against a real PostgreSQL (test/helpers/fault-proxy.ts): each fault is checked
 * from both ends, what the client through the proxy sees and what the server shows to a direct
 * connection (pg_stat_activity, advisory locks). The database is the file's own: advisory locks
 * are per database, and other files (and other runs) take theirs at the same time.
 */
describe('the fault proxy', () => {
  const db = useDatabase('postgres');
  const proxy = useResource('the fault proxy', () => startFaultProxy(db.url), (p) => p.close(), { perTest: true });

  /** A client through the proxy, named in its startup packet; its socket is destroyed when the test ends, hung or not. */
  const client = (name: string, config: pg.ClientConfig = {}) => {
    const c = new pg.Client({ connectionString: proxy.url(db.url), application_name: name, ...config });
    // A fault makes it emit one; the tests assert on their queries instead.
    c.on('error', () => undefined);
    onTestFinished(() => void c.connection.stream.destroy());
    return c;
  };
  const connected = async (name: string) => {
    const c = client(name);
    await c.connect();
    return c;
  };
  const pidOf = async (c: pg.Client) => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  const backend = async (pid: number) =>
    (await db.pool.query<{ state: string; query: string }>('SELECT state, query FROM pg_stat_activity WHERE pid = $1', [pid])).rows[0];

  it('forwards queries both ways and reads who connected from the startup packet', async () => {
    expect(new URL(proxy.url(db.url))).toMatchObject({ hostname: '127.0.0.1', port: String(proxy.port) });
    const c = await connected('fault-proxy forwards');
    const { rows } = await c.query(`SELECT current_setting('application_name') AS app, 40 + 2 AS n`);
    expect(rows).toEqual([{ app: 'fault-proxy forwards', n: 42 }]);
    const [conn, ...others] = proxy.connections();
    expect(others).toEqual([]);
    expect(conn).toMatchObject({
      id: 1,
      fault: 'none',
      clientPort: (c.connection.stream as Socket).localPort,
      params: { application_name: 'fault-proxy forwards', database: new URL(db.url).pathname.slice(1) },
    });
    expect(conn!.bytesToServer).toBeGreaterThan(0);
    expect(conn!.bytesToClient).toBeGreaterThan(0);
    expect([conn!.bytesToServer, conn!.bytesToClient]).toEqual([conn!.bytesFromClient, conn!.bytesFromServer]);
  });

  it('reset: a query in flight fails with ECONNRESET, and the server ends the session', async () => {
    const c = await connected('fault-proxy reset');
    const pid = await pidOf(c);
    // Otherwise the backend would notice its lost client only when the sleep ends.
    await c.query(`SET client_connection_check_interval = '100ms'`);
    const sleeping = watch(c.query('SELECT pg_sleep(60)'));
    await expect.poll(async () => (await backend(pid))?.state, WAIT).toBe('active');
    proxy.fault('reset');
    expect(await sleeping.result).toMatchObject({ code: 'ECONNRESET' });
    await expect.poll(() => backend(pid), WAIT).toBeUndefined();
  });

  it('half-open: the server ends the session and frees its locks, while the client hears nothing at all', async () => {
    const c = await connected('fault-proxy half-open');
    const pid = await pidOf(c);
    await c.query('SELECT pg_advisory_lock(1, 2)');
    proxy.fault('half-open');
    const [conn] = proxy.connections();
    const [read, heard] = [conn!.bytesFromClient, conn!.bytesToClient];
    const query = watch(c.query('SELECT 1'));
    // Two events instead of a sleep: the server has ended the session, and the query reached the proxy.
    await expect.poll(() => backend(pid), WAIT).toBeUndefined();
    await expect.poll(() => conn!.bytesFromClient, WAIT).toBeGreaterThan(read);
    // The xact form: taken and given back within the statement, on whichever pool connection.
    expect((await db.pool.query('SELECT pg_try_advisory_xact_lock(1, 2) AS free')).rows).toEqual([{ free: true }]);
    // No answer, no FIN, no RST: the client's socket is open and its query pending.
    expect(query.settled).toBe(false);
    expect(conn!.bytesToClient).toBe(heard);
    expect(c.connection.stream).toMatchObject({ destroyed: false, readableEnded: false });
    expect(proxy.connections()).toEqual([conn]);
  });

  it('stall: only the chosen connection waits, its server session idle and its lock held, until the link heals', async () => {
    const victim = await connected('fault-proxy stalled');
    const bystander = await connected('fault-proxy bystander');
    const pid = await pidOf(victim);
    await victim.query('SELECT pg_advisory_lock(1, 3)');
    proxy.fault('stall', { which: (c) => c.params.application_name === 'fault-proxy stalled' });
    expect(proxy.connections().map((c) => c.fault)).toEqual(['stall', 'none']);
    const [conn] = proxy.connections();
    const [read, sent] = [conn!.bytesFromClient, conn!.bytesToServer];
    const query = watch(victim.query(`SELECT 'held' AS said`));
    await expect.poll(() => conn!.bytesFromClient, WAIT).toBeGreaterThan(read);
    // Sent after the stalled query, through the same proxy, and answered.
    expect((await bystander.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(await backend(pid)).toMatchObject({ state: 'idle', query: 'SELECT pg_advisory_lock(1, 3)' });
    expect((await db.pool.query('SELECT pg_try_advisory_xact_lock(1, 3) AS free')).rows).toEqual([{ free: false }]);
    expect(query.settled).toBe(false);
    expect(conn!.bytesToServer).toBe(sent);
    // Healed, the held query is delivered as it was sent.
    proxy.fault('none');
    expect(await query.result).toMatchObject({ rows: [{ said: 'held' }] });
  });

  it('latency: a query waits at least the delay each way, and a long answer arrives whole and in order', async () => {
    const c = await connected('fault-proxy latency');
    const latencyMs = 150;
    proxy.fault('latency', { latencyMs });
    const start = performance.now();
    await c.query('SELECT 1');
    // A lower bound only: the machine may be slower, never faster.
    expect(performance.now() - start).toBeGreaterThanOrEqual(2 * latencyMs);
    // An answer of many chunks, each delayed on its own: any reordering would garble it.
    const { rows } = await c.query<{ s: string }>(`SELECT string_agg(i::text, ',') AS s FROM generate_series(1, 100000) AS i`);
    expect(rows[0]!.s).toBe(Array.from({ length: 100000 }, (_, i) => i + 1).join(','));
    expect(proxy.connections()[0]!.bytesToClient).toBeGreaterThan(500_000);
  });

  it('sticky stall: a new connection hangs in its handshake, and connects again once the fault is lifted', async () => {
    proxy.fault('stall', { sticky: true });
    const hung = client('fault-proxy sticky', { connectionTimeoutMillis: 2_000 });
    const connecting = watch(hung.connect());
    await expect.poll(() => proxy.connections()[0]?.params.application_name, WAIT).toBe('fault-proxy sticky');
    expect(proxy.connections()[0]).toMatchObject({ fault: 'stall', bytesToServer: 0 });
    expect(connecting.settled).toBe(false);
    expect(await connecting.result).toMatchObject({ message: expect.stringMatching(/timeout/) });
    proxy.fault('none');
    const after = await connected('fault-proxy after');
    expect((await after.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(proxy.connections().at(-1)).toMatchObject({ fault: 'none', params: { application_name: 'fault-proxy after' } });
  });

  it('sticky stall at ready: a new connection completes its handshake, then its first statement hangs', async () => {
    proxy.fault('stall', { sticky: true, which: (c) => c.params.application_name === 'fault-proxy at ready', atReady: true });
    const c = await connected('fault-proxy at ready');
    const [conn] = proxy.connections();
    expect(conn!.fault).toBe('stall');
    const sent = conn!.bytesToServer;
    const query = watch(c.query('SELECT 1 AS one'));
    await expect.poll(() => conn!.bytesFromClient, WAIT).toBeGreaterThan(sent);
    expect(query.settled).toBe(false);
    expect(conn!.bytesToServer).toBe(sent);
    // Only the connections the rule picks.
    const other = await connected('fault-proxy not at ready');
    expect((await other.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
    proxy.fault('none');
    expect(await query.result).toMatchObject({ rows: [{ one: 1 }] });
  });

  it('refuses new connections while asked to, and accepts them again after', async () => {
    proxy.refuseNew(true);
    await expect(connected('fault-proxy refused')).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(proxy.connections()).toEqual([]);
    proxy.refuseNew(false);
    const c = await connected('fault-proxy accepted');
    expect((await c.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('close destroys every connection, stalled ones too, and may be called twice', async () => {
    const c = await connected('fault-proxy closed');
    proxy.fault('stall');
    const gone = new Promise((resolve) => c.connection.stream.once('close', resolve));
    await Promise.all([proxy.close(), proxy.close()]);
    await gone;
    expect(proxy.connections()).toEqual([]);
  });
});
