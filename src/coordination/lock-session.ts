import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';

import pg from 'pg';

import { coerceDbError, DatabaseError, sqlstateOf } from '../db/errors.js';
import { destroyConnection } from '../db/pool.js';

import { KEEPALIVE, LEASE_MS, SERVER_IDLE_EXPIRY_MS } from './lease.js';
import { LOCK_NAMESPACE } from './lock-ids.js';
import type { JobLock } from './types.js';

export interface LockSessionOptions {
  /** Where the session connects, when not where the pool does (PITWALL_LOCK_DATABASE_URL). */
  connectionString?: string | undefined;
  /** A session of this process that was lost: its backend, should it still live, is ended first. */
  replaces?: LockSession | undefined;
}

/**
 * The longest a statement on the session waits for a row lock (lock_timeout): a dead run's row
 * held by a late write must cost one refused take, never the lease of the process that asks.
 */
const LOCK_WAIT_MS = 2_000;

/** The backend that serves a session, as pg_stat_activity names it (a pid alone may be reused). */
interface Backend {
  pid: number;
  start: string;
}

/**
 * This process's lock session's name in pg_stat_activity, `pitwall <role> <pid>@<host>` within
 * PostgreSQL's 63 characters: what the status views name an owner by.
 */
export const sessionName = (role: string): string => `pitwall ${role} ${process.pid}@${hostname()}`.slice(0, 63);

/**
 * One connection that holds every advisory lock of a process: the sources it owns, its presence,
 * and the job lock of each run it has going. Locks cost no connection each, so a worker with a
 * thousand sources holds them on this one.
 *
 * The session is also the process's lease (src/coordination/lease.ts). It is valid for
 * LEASE_MS after the send of the last statement the server answered; past that, with no newer
 * answer, it is lost: `lost` aborts, the socket is destroyed (a query waiting on a half-open link
 * would otherwise wait for TCP to give up, about 15 minutes), and every run whose locks lived here
 * stops. `valid()` is read before each request a run sends, so a process resumed after a pause
 * (SIGSTOP) sends nothing before its watchdog has even run.
 */
export class LockSession {
  private readonly ended = new AbortController();
  // One statement at a time on the connection: the beat and the runs' lock statements queue here.
  private turn: Promise<unknown> = Promise.resolve();
  private lastAnsweredSend: number;
  private watchdog: NodeJS.Timeout | undefined;
  private backend: Backend | undefined;

  private constructor(private readonly client: pg.Client) {
    // Every run of the worker watches it (its job locks live here): one listener per run.
    setMaxListeners(0, this.ended.signal);
    this.lastAnsweredSend = performance.now();
    const onLoss = (err?: unknown) => this.lose(coerceDbError(err ?? new Error('the lock session\'s connection ended')));
    client.on('error', onLoss);
    client.on('end', () => onLoss());
    this.arm();
  }

  /** A session on the pool's database, named for this process in pg_stat_activity (sessionName). */
  static async open(pool: pg.Pool, role: string, options: LockSessionOptions = {}): Promise<LockSession> {
    const client = new pg.Client({
      ...pool.options,
      ...(options.connectionString !== undefined ? { connectionString: options.connectionString } : {}),
      application_name: sessionName(role),
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE.idleS * 1000,
      // A connect that hangs (a stalled link, a server that accepts and says nothing) is a lost session too.
      connectionTimeoutMillis: LEASE_MS,
    });
    // An error while connecting is the connect's rejection; this keeps it from being unhandled too.
    client.on('error', () => undefined);
    await client.connect();
    const session = new LockSession(client);
    try {
      // A machine that is lost sends no FIN: without keepalives the server would keep its session,
      // and every lock of it, for the operating system's default of two hours.
      await session.query(
        `SELECT set_config('tcp_keepalives_idle', $1, false), set_config('tcp_keepalives_interval', $2, false), set_config('tcp_keepalives_count', $3, false),
                set_config('lock_timeout', $4, false)`,
        [KEEPALIVE.idleS, KEEPALIVE.intervalS, KEEPALIVE.count, LOCK_WAIT_MS].map(String),
      );
      await session.setIdleExpiry(SERVER_IDLE_EXPIRY_MS);
      const [me] = await session.query<Backend>(`SELECT pid, backend_start::text AS start FROM pg_stat_activity WHERE pid = pg_backend_pid()`);
      session.backend = me;
      // Until the old backend has exited, it still holds the locks this process held.
      const old = options.replaces?.backend;
      if (old) await session.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = $1 AND backend_start::text = $2', [old.pid, old.start]);
    } catch (err) {
      await session.close();
      throw err;
    }
    return session;
  }

  /** PostgreSQL 14 and later end a session idle this long; an older server keeps only TCP's word. */
  private async setIdleExpiry(ms: number): Promise<void> {
    try {
      await this.query(`SELECT set_config('idle_session_timeout', $1, false)`, [String(Math.round(ms))]);
    } catch (err) {
      if (sqlstateOf(err) !== '42704') throw err;
    }
  }

  /** Aborted, with a DatabaseError, when the session was lost or closed: every lock of it is gone, or soon will be. */
  get lost(): AbortSignal {
    return this.ended.signal;
  }

  /** Whether the lease still holds: checked before each request a run sends. Past its deadline, it is lost at once. */
  valid(): boolean {
    if (this.ended.signal.aborted) return false;
    if (performance.now() - this.lastAnsweredSend < LEASE_MS) return true;
    this.expire();
    return false;
  }

  async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
    const mine = this.turn.then(async () => {
      this.ended.signal.throwIfAborted();
      const sent = performance.now();
      try {
        const result = await this.client.query<R>(text, values);
        this.answered(sent);
        return result;
      } catch (err) {
        // A statement the server refused still proves the session alive; a dropped link does not.
        if (sqlstateOf(err) !== undefined && !this.ended.signal.aborted) this.answered(sent);
        throw err;
      }
    });
    this.turn = mine.catch(() => undefined);
    return (await mine).rows;
  }

  /** A handle on job locks this session took (`ids` in LOCK_NAMESPACE): lost with the session, given back by release(). */
  jobLocks(ids: readonly number[]): JobLock {
    let released = false;
    return {
      lost: this.lost,
      held: () => {
        if (!this.valid()) throw this.lost.reason;
      },
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

  /** Ends the session, freeing every lock it holds; bounded, whatever the link does. Safe to call twice. */
  async close(): Promise<void> {
    if (this.ended.signal.aborted) return this.destroy();
    this.ended.abort(new DatabaseError('the lock session was closed', { retryable: false }));
    clearTimeout(this.watchdog);
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, 1_000)));
    await Promise.race([this.client.end().catch(() => undefined), bound]);
    clearTimeout(timer);
    this.destroy();
  }

  private answered(sent: number): void {
    if (sent <= this.lastAnsweredSend) return;
    this.lastAnsweredSend = sent;
    this.arm();
  }

  /** The watchdog: fires at the lease's deadline unless a newer answer moved it. */
  private arm(): void {
    clearTimeout(this.watchdog);
    if (this.ended.signal.aborted) return;
    const left = this.lastAnsweredSend + LEASE_MS - performance.now();
    // Node counts a timer from the event loop's cached time, which on a busy machine is behind the
    // clock valid() reads: the timer can fire before the deadline, and then it looks again.
    this.watchdog = setTimeout(() => {
      if (this.valid()) this.arm();
    }, Math.max(0, left) + 1);
    this.watchdog.unref();
  }

  private expire(): void {
    this.lose(new DatabaseError(`no answer from the database within ${LEASE_MS} ms`, { retryable: false }));
  }

  private lose(cause: DatabaseError): void {
    if (this.ended.signal.aborted) return;
    clearTimeout(this.watchdog);
    this.ended.abort(new DatabaseError(`lost the lock session: ${cause.message}`, { cause, sqlstate: cause.sqlstate, retryable: false }));
    this.destroy();
  }

  /** Ends the socket itself: pg's own end() waits for the server, which may never answer. */
  private destroy(): void {
    destroyConnection(this.client);
  }
}
