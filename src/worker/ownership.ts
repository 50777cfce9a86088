import type pg from 'pg';

import { abortableSleep } from '../api/rate-limit.js';
import { startBeat, type Beat } from '../coordination/beat.js';
import { BEAT_MS, STALE_AFTER_MS } from '../coordination/lease.js';
import { sourceLockId, asObjid, OWNER_NAMESPACE, PRESENCE_NAMESPACE, WORKER_PRESENCE } from '../coordination/lock-ids.js';
import { globalShareOf, LOCK_PICTURE_PARAMS, LOCK_PICTURE_SQL, lockPicture, sourceShareOf, type LockPicture } from '../coordination/lock-picture.js';
import { LockSession } from '../coordination/lock-session.js';
import type { PaceShares } from '../coordination/pace.js';
import { takeSources } from '../coordination/take-sources.js';
import type { Logger } from '../log.js';
import type { HeartbeatGroup } from '../sync/heartbeat.js';

/**
 * How long after a worker dies (`kill -9`, a lost machine) its sources' runs start again on
 * another live worker, in ms: that worker takes the sources at its next beat (within one
 * interval), and its catch-up reruns a dead run a second after the run's last heartbeat (written
 * before the death) is STALE_AFTER_MS old (catch-up-plan.ts). The two waits overlap; their sum
 * bounds both, and 4 s more are left for starting the run on a busy machine.
 */
export const TAKEOVER_BOUND_MS = BEAT_MS + STALE_AFTER_MS + 1_000 + 4_000;

export interface OwnershipOptions {
  pool: pg.Pool;
  /** Every source this worker can run; every worker of a warehouse names the same ones. */
  sources: readonly string[];
  logger: Logger;
  /** How often the worker looks at who owns what, takes free sources and gives up extra ones. */
  beatMs?: number;
  /** The worker took `source`: it runs its schedules, catch-up, pace and concurrency from now. */
  gained(sources: readonly string[]): Promise<void>;
  /** The worker no longer owns `source` (given up to even out shares, or its session was lost). */
  lost(source: string): void;
  /** The source sends nothing from this worker for `ms` (a guest works it, and has yet to see its new owner). */
  hold(source: string, ms: number): void;
  /** A source with a run going or waiting here: never given up to even out shares. */
  busy(source: string): boolean;
  /** The heartbeats of the worker's runs, written at each beat on the lock session. */
  heartbeats: HeartbeatGroup;
  /** Where the lock session connects, when not where the pool does (PITWALL_LOCK_DATABASE_URL). */
  lockDatabaseUrl?: string | undefined;
}

/**
 * Which sources this worker owns. A source is owned by one worker at a time, through an advisory
 * lock on the worker's lock session (src/coordination/lock-ids.ts); the owner alone runs the
 * source's schedules, so each fire runs once. Every beat the worker writes its runs' heartbeats,
 * reads who owns what, takes free sources up to its fair share (all sources over the live workers,
 * rounded up) and gives up idle ones above it, all on the lock session, whose answers keep its
 * lease (src/coordination/lease.ts). When the session is lost (a cut link, a failover, its lease
 * run out while the process was stopped), every source is dropped at once and their runs stop;
 * the next beat opens a new session, ends the old backend should it still live, and takes sources
 * again.
 */
export class Ownership {
  private session: LockSession | undefined;
  private readonly mine = new Set<string>();
  private picture: LockPicture = { workers: 1, processes: 1, owned: new Set(), guests: new Map(), sourcesWorked: 0 };
  /**
   * Sources owned since before the last beat: the others have counted them in their shares of the
   * cap on all sources by now. Ones taken at a beat count here from the next.
   */
  private settled = 0;
  private beat: Beat | undefined;
  private stopped = false;
  private readonly stopping = new AbortController();
  readonly beatMs: number;

  constructor(private readonly options: OwnershipOptions) {
    this.beatMs = options.beatMs ?? BEAT_MS;
  }

  /**
   * Opens the lock session and makes the worker known, then takes its first sources one beat
   * later, once every worker started with it has made itself known too (a deploy, a compose
   * `--scale`), so that they share the sources before any run starts. Then beats until stop().
   */
  async start(): Promise<void> {
    await this.openSession();
    await abortableSleep(this.beatMs, this.stopping.signal).catch(() => undefined);
    // While the session is lost (said once, by sessionLost), the tries to open a new one are quiet.
    const failed = (err: unknown) =>
      (this.session?.lost.aborted ? this.options.logger.debug : this.options.logger.warn).call(
        this.options.logger,
        { err: err instanceof Error ? err.message : String(err) },
        'ownership beat failed; next one in a moment',
      );
    await this.look().catch(failed);
    this.beat = startBeat(() => this.look(), this.beatMs, failed);
  }

  /** Whether the worker holds a live lock session within its lease: its health says so. */
  holdsSession(): boolean {
    return this.session?.valid() === true;
  }

  /** The current lock session: the runs' job locks are taken on it. */
  lockSession(): LockSession {
    if (!this.session || this.session.lost.aborted) throw new Error('the worker holds no lock session now');
    return this.session;
  }

  owns(source: string): boolean {
    return this.mine.has(source);
  }

  owned(): string[] {
    return [...this.mine];
  }

  /** This worker's shares of each source's rate and of the cap on all sources, as of its last beat. */
  readonly shares: PaceShares = {
    sourceShare: (source) => sourceShareOf(this.picture, source),
    globalShare: () => globalShareOf(this.picture, Math.min(this.settled, this.mine.size)),
  };

  private async openSession(): Promise<void> {
    const old = this.session;
    const session = await LockSession.open(this.options.pool, 'worker', { connectionString: this.options.lockDatabaseUrl, replaces: old });
    try {
      await session.query('SELECT pg_advisory_lock_shared($1, $2)', [PRESENCE_NAMESPACE, WORKER_PRESENCE]);
      this.picture = lockPicture(await session.query(LOCK_PICTURE_SQL, LOCK_PICTURE_PARAMS));
    } catch (err) {
      await session.close();
      throw err;
    }
    this.session = session;
    session.lost.addEventListener('abort', () => this.sessionLost(session), { once: true });
    if (old) this.options.logger.info({ sources: this.options.sources.length }, 'lock session open again; taking sources at the next beat');
  }

  /** Every source goes at once, in one line: their runs stop with their job locks, which lived on the session. */
  private sessionLost(session: LockSession): void {
    if (this.stopped || session !== this.session) return;
    const reason = session.lost.reason as Error | undefined;
    const sources = [...this.mine];
    for (const source of sources) this.drop(source);
    this.options.logger.error({ err: reason?.message, sources }, 'lost the lock session: this worker stopped every run and request of its sources, and takes sources again once it has a new session');
  }

  private async look(): Promise<void> {
    if (this.stopped) return;
    if (!this.session || this.session.lost.aborted) {
      // Sources are taken from the next beat, as at start: after a restart or a failover every
      // worker comes back at about this time, and each should count the others before it takes.
      await this.openSession();
      return;
    }
    const session = this.session;
    await this.options.heartbeats.write(session);
    this.picture = lockPicture(await session.query(LOCK_PICTURE_SQL, LOCK_PICTURE_PARAMS));
    this.settled = this.mine.size;
    const fair = Math.ceil(this.options.sources.length / Math.max(1, this.picture.workers));
    if (this.mine.size < fair) await this.take(session, fair - this.mine.size);
    else if (this.mine.size > fair) await this.giveUp(session, this.mine.size - fair);
  }

  private async take(session: LockSession, room: number): Promise<void> {
    const free = this.options.sources.filter((s) => !this.mine.has(s) && !this.picture.owned.has(asObjid(sourceLockId(s))));
    const gained = await takeSources(session, free, room);
    if (gained.length === 0 || this.stopped) return;
    await this.holdWhileOthersRun(session, gained);
    for (const source of gained) this.mine.add(source);
    // The shares count this worker as the owner from now on, not from the next look.
    const owned = new Set(this.picture.owned);
    for (const source of gained) owned.add(asObjid(sourceLockId(source)));
    this.picture = { ...this.picture, owned };
    this.options.logger.debug({ sources: gained }, 'sources taken');
    // A source a guest already works (a manual sync) sends nothing here for a beat, by when the
    // guest has seen its new owner and taken its share of the rate.
    for (const source of gained) {
      if (this.picture.guests.has(asObjid(sourceLockId(source)))) this.options.hold(source, this.beatMs + 1_000);
    }
    await this.options.gained(gained);
  }

  /**
   * A source taken while another process's run of it is still recorded running with a fresh
   * heartbeat sends nothing here until that run is dead by the rule: its process may have lost its
   * session (which freed the source) and yet still be sending within its lease.
   */
  private async holdWhileOthersRun(session: LockSession, sources: readonly string[]): Promise<void> {
    const rows = await session.query<{ source: string; ms: number }>(
      `SELECT source, ceil(extract(epoch FROM max(COALESCE(heartbeat_at, started_at)) + make_interval(secs => $2::double precision / 1000) - now()) * 1000)::int AS ms
         FROM pitwall.sync_runs WHERE source = ANY($1) AND status = 'running' GROUP BY source`,
      [sources, STALE_AFTER_MS],
    );
    for (const { source, ms } of rows) {
      if (ms <= 0) continue;
      this.options.hold(source, ms);
      this.options.logger.info({ source, holdMs: ms }, 'source taken while a run of it is still recorded running elsewhere: it sends nothing until that run is dead by the rule');
    }
  }

  private async giveUp(session: LockSession, extra: number): Promise<void> {
    const idle = [...this.mine].filter((s) => !this.options.busy(s)).slice(0, extra);
    if (idle.length === 0) return;
    for (const source of idle) this.drop(source);
    await session.query('SELECT pg_advisory_unlock($1, id) FROM unnest($2::int[]) AS id', [OWNER_NAMESPACE, idle.map(sourceLockId)]);
    this.options.logger.info({ sources: idle }, 'sources handed to the other workers, to even out the shares');
  }

  private drop(source: string): void {
    this.mine.delete(source);
    this.options.lost(source);
  }

  /** Stops beating and ends the session, which frees every source (call once the runs are done). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    // The session first: a beat waiting on a link that no longer answers ends with its socket.
    await this.session?.close();
    await this.beat?.stop();
    for (const source of [...this.mine]) this.drop(source);
  }
}
