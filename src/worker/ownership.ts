import type pg from 'pg';

import { sourceLockId, asObjid, OWNER_NAMESPACE, PRESENCE_NAMESPACE, WORKER_PRESENCE } from '../coordination/lock-ids.js';
import { globalShareOf, LOCK_PICTURE_PARAMS, LOCK_PICTURE_SQL, lockPicture, sourceShareOf, type LockPicture } from '../coordination/lock-picture.js';
import { LockSession } from '../coordination/lock-session.js';
import type { PaceShares } from '../coordination/pace.js';
import type { Logger } from '../log.js';
import { HEARTBEAT_INTERVAL_MS, STALE_AFTER_MS } from '../sync/heartbeat.js';

/**
 * How long after a worker dies (`kill -9`, a lost machine) its sources' runs start again on
 * another live worker, in ms: that worker takes the sources at its next beat (within one
 * interval), and its catch-up reruns a dead run a second after the run's last heartbeat (written
 * before the death) is STALE_AFTER_MS old (catch-up-plan.ts). The two waits overlap; their sum
 * bounds both, and 4 s more are left for starting the run on a busy machine.
 */
export const TAKEOVER_BOUND_MS = HEARTBEAT_INTERVAL_MS + STALE_AFTER_MS + 1_000 + 4_000;

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
}

/**
 * Which sources this worker owns. A source is owned by one worker at a time, through an advisory
 * lock on the worker's lock session (src/coordination/lock-ids.ts); the owner alone runs the
 * source's schedules, so each fire runs once. Every beat (one statement when nothing changes)
 * the worker reads who owns what, takes free sources up to its fair share (all sources over the
 * live workers, rounded up) and gives up idle ones above it. A worker that dies frees its sources
 * with its session, and the others take them at their next beat; one that is only slow
 * (SIGSTOP) keeps them, so nobody runs its jobs beside it.
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
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> = Promise.resolve();
  private stopped = false;
  readonly beatMs: number;

  constructor(private readonly options: OwnershipOptions) {
    this.beatMs = options.beatMs ?? HEARTBEAT_INTERVAL_MS;
  }

  /**
   * Opens the lock session, makes the worker known and takes its first sources: at once when it is
   * the only process at work, else one beat later, once the others have counted it in their
   * shares of the cap on all sources. Then beats until stop().
   */
  async start(): Promise<void> {
    await this.openSession();
    if (this.picture.processes === 1) {
      this.beating = this.beat();
      await this.beating;
    }
    this.timer = setInterval(() => {
      this.beating = this.beating.then(() => this.beat());
    }, this.beatMs);
  }

  /** The current lock session: the runs' job locks are taken on it. */
  lockSession(): LockSession {
    if (!this.session) throw new Error('the worker has no lock session yet');
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
    const session = await LockSession.open(this.options.pool, 'worker');
    try {
      await session.query('SELECT pg_advisory_lock_shared($1, $2)', [PRESENCE_NAMESPACE, WORKER_PRESENCE]);
      this.picture = lockPicture(await session.query(LOCK_PICTURE_SQL, LOCK_PICTURE_PARAMS));
    } catch (err) {
      await session.close();
      throw err;
    }
    this.session = session;
  }

  private async beat(): Promise<void> {
    if (this.stopped) return;
    const { logger } = this.options;
    try {
      if (!this.session || this.session.lost.aborted) {
        const reason = this.session?.lost.reason as Error | undefined;
        if (this.mine.size > 0) logger.error({ err: reason?.message, sources: [...this.mine] }, 'lost the lock session, and with it every source this worker owned; their runs stop, and the sources are taken again');
        for (const source of [...this.mine]) this.drop(source);
        await this.openSession();
      }
      const session = this.session as LockSession;
      this.picture = lockPicture(await session.query(LOCK_PICTURE_SQL, LOCK_PICTURE_PARAMS));
      this.settled = this.mine.size;
      const fair = Math.ceil(this.options.sources.length / Math.max(1, this.picture.workers));
      if (this.mine.size < fair) await this.take(session, fair - this.mine.size);
      else if (this.mine.size > fair) await this.giveUp(session, this.mine.size - fair);
    } catch (err) {
      logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'ownership beat failed; next one in a moment');
    }
  }

  private async take(session: LockSession, room: number): Promise<void> {
    const free = this.options.sources.filter((s) => !this.mine.has(s) && !this.picture.owned.has(asObjid(sourceLockId(s)))).slice(0, room);
    if (free.length === 0) return;
    const rows = await session.query<{ id: number; ok: boolean }>(
      'SELECT id, pg_try_advisory_lock($1, id) AS ok FROM unnest($2::int[]) AS id',
      [OWNER_NAMESPACE, free.map(sourceLockId)],
    );
    const taken = new Set(rows.filter((r) => r.ok).map((r) => r.id));
    const gained = free.filter((s) => taken.has(sourceLockId(s)));
    if (gained.length === 0 || this.stopped) return;
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
    clearInterval(this.timer);
    await this.beating;
    for (const source of [...this.mine]) this.drop(source);
    await this.session?.close();
  }
}
