// The coordination layer's shared types: what holds a run's job locks, whoever took them (a
// connection of the run's own, or a worker's lock session).

export interface JobLock {
  /**
   * Aborted, with a DatabaseError as its reason, when the lock is lost for good: its connection
   * dropped and the lock could not be taken back at once. The run must stop then, or two
   * processes could run the job side by side.
   */
  readonly lost: AbortSignal;
  /** Resolves once the lock is held with no retake pending; throws the loss when it was lost. */
  confirm(): Promise<void>;
  release(): Promise<void>;
}
