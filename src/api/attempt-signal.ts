/**
 * The signal of one attempt: aborted at its deadline or when the caller's signal aborts, until
 * `end` is called.
 *
 * Not `AbortSignal.any([caller, AbortSignal.timeout(ms)])`: on Node 20 each `AbortSignal.any`
 * adds an entry to every source signal's set of dependants that nothing removes until that
 * source is collected (nodejs/node#55351, fixed in later lines only). A run's signal is composed
 * from the worker's, which lives as long as the process, so each request grew the worker's set
 * by some 90 bytes for good: 30 MB an hour at 100 requests/s. A deadline of our own is also
 * disarmed as soon as the answer is in, where AbortSignal.timeout's timer stays armed until its
 * signal is collected.
 */
export interface AttemptSignal {
  readonly signal: AbortSignal;
  /** Whether the deadline passed (the caller's abort is not a timeout). */
  readonly timedOut: boolean;
  /** Disarms the deadline and lets go of the caller's signal. Safe to call twice. */
  end(): void;
}

/**
 * `graceMs`, asked each time the deadline passes: milliseconds more before it is asked again, or
 * 0 to abort now (a body still arriving at a good pace is read on: body-pace.ts).
 */
export function attemptSignal(caller: AbortSignal | undefined, timeoutMs: number, graceMs: () => number = () => 0): AttemptSignal {
  const controller = new AbortController();
  let timedOut = false;
  let deadline: ReturnType<typeof setTimeout>;
  const arm = (ms: number) => {
    deadline = setTimeout(expire, ms);
    // A request in flight keeps the process alive by its socket; its deadline alone need not.
    deadline.unref?.();
  };
  const expire = () => {
    const more = graceMs();
    if (more > 0) return arm(more);
    timedOut = true;
    // The reason AbortSignal.timeout gives.
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  };
  arm(timeoutMs);
  const unfollow = caller ? follow(caller, controller) : undefined;
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    end() {
      clearTimeout(deadline);
      unfollow?.();
    },
  };
}

/** The attempts in flight under one caller's signal, all reached through its one listener. */
interface Relay {
  controllers: Set<AbortController>;
  onAbort: () => void;
}

const relays = new WeakMap<AbortSignal, Relay>();

/**
 * Aborts `controller` with `caller` until the returned function is called. One listener per
 * caller's signal, however many of its attempts are in flight (a listener each would pass the
 * signal's warning threshold at PITWALL_CONCURRENCY above 10), and removed with its last attempt.
 */
function follow(caller: AbortSignal, controller: AbortController): () => void {
  if (caller.aborted) {
    controller.abort(caller.reason);
    return () => undefined;
  }
  let relay = relays.get(caller);
  if (!relay) {
    const controllers = new Set<AbortController>();
    const onAbort = () => {
      relays.delete(caller);
      for (const c of controllers) c.abort(caller.reason);
    };
    relay = { controllers, onAbort };
    relays.set(caller, relay);
    caller.addEventListener('abort', onAbort, { once: true });
  }
  const mine = relay;
  mine.controllers.add(controller);
  return () => {
    mine.controllers.delete(controller);
    if (mine.controllers.size > 0 || relays.get(caller) !== mine) return;
    relays.delete(caller);
    caller.removeEventListener('abort', mine.onAbort);
  };
}
