import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';

import pg from 'pg';

import { coerceDbError, DatabaseError } from '../db/errors.js';

import { LOCK_NAMESPACE } from './lock-ids.js';
import type { JobLock } from './types.js';

/** The server drops a lost machine's lock session after 10 s of silence and 3 probes 5 s apart: 25 s. */
const KEEPALIVE_IDLE_S = 10;
const KEEPALIVE_INTERVAL_S = 5;
const KEEPALIVE_COUNT = 3;
export const LOST_MACHINE_MS = (KEEPALIVE_IDLE_S + KEEPALIVE_INTERVAL_S * KEEPALIVE_COUNT) * 1000;

/**
 * One connection that holds every advisory lock of a process: the sources it owns, its presence,
 * and the job lock of each run it has going. Locks cost no connection each, so a worker with a
 * thousand sources holds them on this one. The session is the lease: `kill -9` ends it and the
 * server frees every lock at once; a process that is only slow keeps them.
 *
 * When the connection drops, every lock is gone with it: `lost` aborts, the process's runs stop
 * (their job locks were here), and the owner opens a new session and takes its sources again.
 */
export class LockSession {
  private readonly ended = new AbortController();
  // One statement at a time on the connection: the beat and the runs' lock statements queue here.
  private turn: Promise<unknown> = Promise.resolve();

  private constructor(private readonly client: pg.Client) {
    // Every run of the worker watches it (its job locks live here): one listener per run.
    setMaxListeners(0, this.ended.signal);
    const onLoss = (err?: unknown) => {
      if (this.ended.signal.aborted) return;
      const cause = coerceDbError(err ?? new Error('the lock session\'s connection ended'));
      this.ended.abort(new DatabaseError(`lost the lock session: ${cause.message}`, { cause: err, sqlstate: cause.sqlstate, retryable: false }));
    };
    client.on('error', onLoss);
    client.on('end', () => onLoss());
  }

  /** A session on the pool's database, named for this process in pg_stat_activity. */
  static async open(pool: pg.Pool, role: string): Promise<LockSession> {
    const client = new pg.Client({ ...pool.options, application_name: `pitwall ${role} ${process.pid}@${hostname()}`.slice(0, 63), keepAlive: true });
    await client.connect();
    const session = new LockSession(client);
    try {
      // A machine that is lost (powered off, cut from the network) sends no FIN: without these the
      // server would keep its session, and every lock of it, for the operating system's default
      // of two hours. Probes answered by the kernel keep a stopped (SIGSTOP) process's session.
      await session.query(`SET tcp_keepalives_idle = ${KEEPALIVE_IDLE_S}; SET tcp_keepalives_interval = ${KEEPALIVE_INTERVAL_S}; SET tcp_keepalives_count = ${KEEPALIVE_COUNT}`);
    } catch (err) {
      await session.close();
      throw err;
    }
    return session;
  }

  /** Aborted, with a DatabaseError, when the connection dropped: every lock of the session is gone. */
  get lost(): AbortSignal {
    return this.ended.signal;
  }

  async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
    const mine = this.turn.then(() => {
      this.ended.signal.throwIfAborted();
      return this.client.query<R>(text, values);
    });
    this.turn = mine.catch(() => undefined);
    return (await mine).rows;
  }

  /** A handle on job locks this session took (`ids` in LOCK_NAMESPACE): lost with the session, given back by release(). */
  jobLocks(ids: readonly number[]): JobLock {
    let released = false;
    return {
      lost: this.lost,
      confirm: async () => this.lost.throwIfAborted(),
      release: async () => {
        if (released || this.lost.aborted) return;
        released = true;
        await this.unlockJobs(ids).catch(() => undefined);
      },
    };
  }

  /** Gives back job locks of this session (those it does not hold are left alone). */
  async unlockJobs(ids: readonly number[]): Promise<void> {
    await this.query('SELECT pg_advisory_unlock($1, id) FROM unnest($2::int[]) AS id', [LOCK_NAMESPACE, ids]);
  }

  /** Ends the session, freeing every lock it holds. Safe to call twice. */
  async close(): Promise<void> {
    if (this.ended.signal.aborted) return;
    this.ended.abort(new DatabaseError('the lock session was closed', { retryable: false }));
    await this.client.end().catch(() => undefined);
  }
}
