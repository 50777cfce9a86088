import { canonicalQuery } from '../api/query.js';
import { networkCauseOf, type NetworkCause } from '../api/unreachable.js';

import type { Endpoint, Params } from './endpoints.js';
import { isRefusalStatus } from './key-refusal.js';
import { scopeKey } from './sql/sync-state.js';

/** How a root request ended: any answer that accepts the caller, a refusal of the caller, or no HTTP answer at all. */
export type RootAnswer = { kind: 'accepted' } | { kind: 'refused' } | { kind: 'unreached'; cause: NetworkCause };

/**
 * Tells a cause common to the whole run from scopes that fail one by one, from the roots of the
 * walk (schedules by year, the results feed), which a working upstream always accepts:
 * - every root refused (RequestValid 0, or HTTP 401/403 behind some gateways) and nothing
 *   loaded: the API key is the likely cause;
 * - no root got any HTTP answer (connection refused, DNS, TLS, timeout) and nothing loaded: the
 *   upstream's address (or the network) is.
 * The run then says so in one line instead of "4 scope(s) failed and 0 answered RequestValid 0".
 */
export class RootAnswers {
  private readonly roots = new Set<string>();
  private visited = 0;
  private refused = 0;
  private unreached: NetworkCause[] = [];
  private readonly held: Array<() => void> = [];

  /** The roots of one phase's plan; only their answers count. */
  addRoots(roots: ReadonlyArray<{ endpoint: Endpoint; params: Params }>): void {
    for (const r of roots) this.roots.add(scopeKey(r.endpoint.name, canonicalQuery(r.params)));
  }

  /** One visit of a scope (`query`: its canonical parameters) ended with `answer`. */
  record(endpoint: Endpoint, query: string, answer: RootAnswer): void {
    if (!this.roots.has(scopeKey(endpoint.name, query))) return;
    this.visited += 1;
    if (answer.kind === 'refused') this.refused += 1;
    if (answer.kind === 'unreached') this.unreached.push(answer.cause);
  }

  /**
   * Holds the warning about a root's failure (`warn`) that may share the run's one cause (a
   * refusal, no HTTP answer) until the run knows: true when held. A refused key or an
   * unreachable upstream is then said once, not once per root.
   */
  hold(endpoint: Endpoint, query: string, answer: RootAnswer, warn: () => void): boolean {
    if (answer.kind === 'accepted' || !this.roots.has(scopeKey(endpoint.name, query))) return false;
    this.held.push(warn);
    return true;
  }

  /** Says the held warnings, unless the run ended on a cause common to every root (`runWide`), which says it for them. */
  settle(runWide: boolean): void {
    const held = this.held.splice(0);
    if (!runWide) for (const warn of held) warn();
  }

  /** Every root refused, and no scope loaded or found unchanged. */
  keyRefused(scopesAccepted: number): boolean {
    return this.visited > 0 && this.refused === this.visited && scopesAccepted === 0;
  }

  /** The first root's network cause when no root got an HTTP answer and no scope was accepted; null otherwise. */
  unreachable(scopesAccepted: number): NetworkCause | null {
    if (this.visited === 0 || this.unreached.length !== this.visited || scopesAccepted > 0) return null;
    return this.unreached[0] ?? null;
  }
}

/** How a visit that failed answers for its root: a refusal of the caller, no HTTP answer, or an answer all the same. */
export function failureAnswer(err: unknown): RootAnswer {
  if (isRefusalStatus(err)) return { kind: 'refused' };
  const cause = networkCauseOf(err);
  return cause ? { kind: 'unreached', cause } : { kind: 'accepted' };
}
