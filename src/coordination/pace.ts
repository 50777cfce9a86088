import { abortableSleep, type RateLimiter } from '../api/rate-limit.js';

type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * Requests per second that can change while requests wait (a share that a worker's beat
 * recomputes); 0 means unlimited.
 */
export type Rate = () => number;

/**
 * How late a send may be and still keep its turns on their grid: a quarter of an interval, at most
 * 5 ms. A timer fires a millisecond or so after it was due; spacing every send from the one
 * before would add that to every interval (7 % of a 10 ms one: a cap of 100/s gave 93/s). Sends
 * at most this late after their due times, which are an interval apart, still put no more than
 * cap + 1 into any second, as sends exactly an interval apart do.
 */
function onTimeWithin(intervalMs: number): number {
  return Math.min(intervalMs / 4, 5);
}

/**
 * A waiter's place when several wait for one turn: the lowest goes first, the oldest among equals.
 * Read when the turn comes, not when the waiter arrived, since a run's progress moves meanwhile.
 */
export type Rank = () => number;

const FIRST_COME: Rank = () => 0;

/** Below every run's progress (0 to 1): what a person or a schedule waits on goes first. */
export const FIRST_RANK = -1;

interface Waiter {
  rank: Rank;
  signal: AbortSignal | undefined;
  resolve: () => void;
  reject: (reason: unknown) => void;
  leave: () => void;
}

/**
 * Requests take turns, one interval apart. A send on time (within `onTimeWithin`, unless
 * `keepsGrid` says no) makes the next due one interval after its own due time; a later one, one
 * interval after the send itself. A process stopped with SIGSTOP (or a loop blocked for a while,
 * or a wait for the global cap's turn) therefore never sends its overdue requests in one burst
 * when it resumes: the first goes, the next waits a whole interval after it.
 *
 * When a turn is due it goes to the waiter of lowest rank (`acquire`'s second argument), the
 * oldest among equals: first come, first served unless ranks are given.
 */
export class TurnLimiter implements RateLimiter {
  private readonly waiting: Waiter[] = [];
  private turning = false;
  private nextAt = -Infinity;
  /** Ends the loop's current sleep. */
  private wake: AbortController | undefined;

  constructor(
    private readonly rate: Rate,
    private readonly sleep: Sleep = abortableSleep,
    /** Inside this limiter's turn, before its request counts as sent: the cap on all sources together. */
    private readonly then?: RateLimiter,
    /**
     * Whether sends on time keep their turns on the grid (`onTimeWithin`), which lets one more into
     * a sliding second: false while the rate is a share of a key that another process paces too,
     * whose own extra one would make two.
     */
    private readonly keepsGrid: () => boolean = () => true,
  ) {}

  /** No request goes before `ms` from now (nor before the next one was due anyway). */
  hold(ms: number): void {
    this.nextAt = Math.max(this.nextAt, performance.now() + ms);
  }

  acquire(signal?: AbortSignal, rank: Rank = FIRST_COME): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      // A request that gives up while it waits leaves the line; it spent no interval.
      const onAbort = () => {
        waiter.leave();
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        rank,
        signal,
        resolve,
        reject,
        leave: () => {
          signal?.removeEventListener('abort', onAbort);
          const at = this.waiting.indexOf(waiter);
          if (at >= 0) this.waiting.splice(at, 1);
          if (this.waiting.length === 0) this.wake?.abort();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
      void this.takeTurns();
    });
  }

  /** Hands out turns while anyone waits: one loop per limiter, so no two turns are ever decided at once. */
  private async takeTurns(): Promise<void> {
    if (this.turning) return;
    this.turning = true;
    try {
      while (this.waiting.length > 0) {
        // Idle since the last turn: due now, no turns banked.
        const due = Math.max(this.nextAt, performance.now());
        // A timer may fire early by the milliseconds its event-loop turn had already run when it was
        // set (its start is the turn's cached clock): wait again until due, or a cap of 100/s sends 110.
        for (let wait = due - performance.now(); wait > 0 && this.waiting.length > 0; wait = due - performance.now()) await this.nap(wait);
        const waiter = this.first();
        if (!waiter) continue;
        waiter.leave();
        try {
          await this.then?.acquire(waiter.signal);
        } catch (err) {
          waiter.reject(err);
          continue;
        }
        const rps = this.rate();
        if (rps <= 0) {
          this.nextAt = -Infinity;
        } else {
          const interval = 1000 / rps;
          const sent = performance.now();
          this.nextAt = (sent - due <= onTimeWithin(interval) && this.keepsGrid() ? due : sent) + interval;
        }
        waiter.resolve();
      }
    } finally {
      this.turning = false;
    }
  }

  /** Sleeps `ms`, or until the last waiter leaves: a drain leaves no timer behind (a hold may be a minute long). */
  private async nap(ms: number): Promise<void> {
    const wake = new AbortController();
    this.wake = wake;
    await this.sleep(ms, wake.signal).catch(() => undefined);
    this.wake = undefined;
  }

  /** The waiter of lowest rank, the oldest among equals. */
  private first(): Waiter | undefined {
    let best: Waiter | undefined;
    let bestRank = Infinity;
    for (const waiter of this.waiting) {
      const rank = waiter.rank();
      if (best === undefined || rank < bestRank) {
        best = waiter;
        bestRank = rank;
      }
    }
    return best;
  }
}

/** What a source's requests share in one process: their pace and their requests in flight. */
export interface SourcePace {
  limiter: RateLimiter;
  /** The source's requests in flight at most, in this process (PITWALL_CONCURRENCY, or a share of it). */
  concurrency(): number;
}

export interface PaceShares {
  /** This process's share of the source's own rate: 1, or less while another process works the source. */
  sourceShare(source: string): number;
  /** This process's share of the cap on all sources together: 1 over the processes sharing it. */
  globalShare(): number;
}

export const WHOLE: PaceShares = { sourceShare: () => 1, globalShare: () => 1 };

/**
 * Every source's pace in one process, and the cap on all of them together, kept in memory: no
 * statement per request. Across processes the rates are shared out instead (`shares`): a worker
 * owns its sources alone, and a process that works a source beside its owner (a manual sync, a
 * probe) takes half of its rate while the owner, seeing it at its next beat, keeps the other half.
 */
export class ProcessPace {
  private readonly sources = new Map<string, { maxRps: number; concurrency: number; pace: SourcePace; limiter: TurnLimiter }>();
  /** Holds asked for before the source's first request here. */
  private readonly holds = new Map<string, number>();
  private readonly global: TurnLimiter;
  private globalMaxRps = 0;
  /** The ranks of each source's runs in this process (`working`). */
  private readonly runs = new Map<string, Set<Rank>>();

  constructor(
    private readonly shares: PaceShares = WHOLE,
    private readonly sleep: Sleep = abortableSleep,
  ) {
    this.global = new TurnLimiter(() => this.globalMaxRps * this.shares.globalShare(), sleep);
  }

  /**
   * The pace of `source`'s requests in this process. Settings given later (a test changing them
   * between runs) apply from then on; the cap on all sources is the latest one given.
   */
  of(source: string, settings: { maxRps: number; globalMaxRps: number; concurrency: number }): SourcePace {
    this.globalMaxRps = settings.globalMaxRps;
    const known = this.sources.get(source);
    if (known) {
      known.maxRps = settings.maxRps;
      known.concurrency = settings.concurrency;
      return known.pace;
    }
    const entry = { maxRps: settings.maxRps, concurrency: settings.concurrency } as { maxRps: number; concurrency: number; pace: SourcePace; limiter: TurnLimiter };
    const share = () => this.shares.sourceShare(source);
    const rank = () => this.rankOf(source);
    const globalTurn: RateLimiter = { acquire: (signal) => this.global.acquire(signal, rank) };
    entry.limiter = new TurnLimiter(() => entry.maxRps * share(), this.sleep, globalTurn, () => share() === 1);
    entry.pace = { limiter: entry.limiter, concurrency: () => Math.max(1, Math.floor(entry.concurrency * share())) };
    const until = this.holds.get(source);
    if (until !== undefined) entry.limiter.hold(until - performance.now());
    this.holds.delete(source);
    this.sources.set(source, entry);
    return entry.pace;
  }

  /**
   * Runs `work` as one of `source`'s runs in this process. When sources wait for the global cap's
   * turn, the turn goes to the source whose runs rank lowest (`rank`, read at each turn): one cap
   * shared by how far along each run is ends runs begun together at about the same time, where
   * equal turns leave the longest to finish alone at its own rate.
   */
  async working<T>(source: string, rank: Rank, work: () => Promise<T>): Promise<T> {
    let ranks = this.runs.get(source);
    if (!ranks) this.runs.set(source, (ranks = new Set()));
    ranks.add(rank);
    try {
      return await work();
    } finally {
      ranks.delete(rank);
      if (ranks.size === 0) this.runs.delete(source);
    }
  }

  /** The lowest rank among `source`'s runs here; a source asked for without a run (a probe) goes first. */
  private rankOf(source: string): number {
    const ranks = this.runs.get(source);
    if (!ranks) return FIRST_RANK;
    let lowest = Infinity;
    for (const rank of ranks) lowest = Math.min(lowest, rank());
    return lowest;
  }

  /** `source`'s requests in this process wait `ms` from now before the next one goes. */
  hold(source: string, ms: number): void {
    const known = this.sources.get(source);
    if (known) known.limiter.hold(ms);
    else this.holds.set(source, performance.now() + ms);
  }
}
