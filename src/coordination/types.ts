// The coordination layer's shared types: what holds a run's job locks (its process's lock session).

export interface JobLock {
  /**
   * Aborted, with a DatabaseError as its reason, when the lock is lost: its session was lost or
   * its lease ran out. The run must stop then, or two processes could run the job side by side.
   */
  readonly lost: AbortSignal;
  /** Throws the loss when the lock is no longer held (the lease ran out, or the session was lost). */
  held(): void;
  release(): Promise<void>;
}
