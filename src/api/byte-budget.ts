/**
 * A budget for the bytes of response bodies a process holds at once, across every run and
 * source in it. The per-body limits bound one body; times the requests in flight, times the
 * sites a worker carries, they bound nothing, so each body holds its decoded bytes here from
 * the first chunk until its scope is done with it.
 *
 * A body whose next chunk does not fit waits, its connection paused. So that waiting bodies can
 * never wait on each other for good, one body already under way may overdraw the budget at a
 * time: it goes on to its end (or its own limit) and gives everything back, and the next waiter
 * goes on. The budget is therefore exceeded by at most one body's limit. A body arriving while
 * nothing is held always goes on, however large, so that a budget smaller than one body (a
 * setting) slows the process down instead of stopping it.
 */
export class ByteBudget {
  used = 0;
  private overdrawing: BudgetHold | null = null;
  private readonly waiting: Array<{ hold: BudgetHold; bytes: number; grant: () => void; cancel: () => void }> = [];

  /** `capacity` in bytes; 0 = no budget (every chunk goes on at once). */
  constructor(readonly capacity: number) {}

  /** A body's share, empty until it grows. */
  hold(): BudgetHold {
    return new BudgetHold(this);
  }

  /** Whether `bytes` more may be held by `hold` now, taking the overdraft when that is its turn. */
  admits(hold: BudgetHold, bytes: number): boolean {
    if (this.capacity === 0 || this.used === 0 || this.used + bytes <= this.capacity || this.overdrawing === hold) return true;
    if (hold.bytes > 0 && this.overdrawing === null) {
      this.overdrawing = hold;
      return true;
    }
    return false;
  }

  take(hold: BudgetHold, bytes: number): void {
    this.used += bytes;
    hold.bytes += bytes;
  }

  wait(hold: BudgetHold, bytes: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const entry = {
        hold,
        bytes,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.take(hold, bytes);
          resolve();
        },
        cancel: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal?.reason);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  giveBack(hold: BudgetHold): void {
    this.used -= hold.bytes;
    hold.bytes = 0;
    if (this.overdrawing === hold) this.overdrawing = null;
    // A body given up while it waited: its wait ends, with nothing taken.
    for (let i = this.waiting.length - 1; i >= 0; i--) if (this.waiting[i]!.hold === hold) this.waiting.splice(i, 1)[0]!.cancel();
    // Oldest first; a waiter that still does not fit stays, and a later, smaller one may go.
    for (let i = 0; i < this.waiting.length; ) {
      const w = this.waiting[i]!;
      if (this.admits(w.hold, w.bytes)) {
        this.waiting.splice(i, 1);
        w.grant();
      } else i += 1;
    }
  }
}

/** One body's bytes in a ByteBudget. */
export class BudgetHold {
  bytes = 0;
  private released = false;

  constructor(private readonly budget: ByteBudget) {}

  /**
   * Adds `bytes` to the hold: null when they fit now (the common case costs no promise), else a
   * promise that resolves once they do, or rejects when `signal` aborts first.
   */
  grow(bytes: number, signal?: AbortSignal): Promise<void> | null {
    if (this.released) return null;
    if (this.budget.admits(this, bytes)) {
      this.budget.take(this, bytes);
      return null;
    }
    return this.budget.wait(this, bytes, signal);
  }

  /** Gives every byte back. Safe to call twice. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.giveBack(this);
  }
}

// One budget per capacity: every client of the process configured alike shares it.
const budgets = new Map<number, ByteBudget>();

/** The process's budget of `capacity` bytes (PITWALL_MAX_BYTES_IN_FLIGHT). */
export function processByteBudget(capacity: number): ByteBudget {
  let budget = budgets.get(capacity);
  if (!budget) budgets.set(capacity, (budget = new ByteBudget(capacity)));
  return budget;
}
