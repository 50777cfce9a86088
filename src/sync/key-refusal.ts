import { ApiError } from '../api/errors.js';
import { canonicalQuery } from '../api/query.js';

import type { Endpoint, Params } from './endpoints.js';
import { scopeKey } from './sql/sync-state.js';

/**
 * Tells a wrong API key from scopes that fail one by one. The upstream answers a request it
 * refuses with `RequestValid: 0` (or, behind some gateways, HTTP 401/403); with a valid key the
 * roots of a walk (schedules by year, the results feed) are always accepted. So when every root
 * request of a run was refused and nothing at all was loaded, the key is the likely cause, and
 * the run says so in one line instead of "4 answered RequestValid 0".
 */
export class KeyRefusalWatch {
  private readonly roots = new Set<string>();
  private rootsVisited = 0;
  private rootsRefused = 0;

  /** The roots of one phase's plan; only their answers count. */
  addRoots(roots: ReadonlyArray<{ endpoint: Endpoint; params: Params }>): void {
    for (const r of roots) this.roots.add(scopeKey(r.endpoint.name, canonicalQuery(r.params)));
  }

  /** One visit of a scope (`query`: its canonical parameters) ended: accepted (anything but a refusal, failures included) or refused. */
  visited(endpoint: Endpoint, query: string, refused: boolean): void {
    if (!this.roots.has(scopeKey(endpoint.name, query))) return;
    this.rootsVisited += 1;
    if (refused) this.rootsRefused += 1;
  }

  /** Whether the run's outcome points at the key: every root refused, and no scope loaded or found unchanged. */
  keyRefused(scopesAccepted: number): boolean {
    return this.rootsVisited > 0 && this.rootsRefused === this.rootsVisited && scopesAccepted === 0;
  }
}

/** An HTTP answer that refuses the caller rather than the request. */
export const isRefusalStatus = (err: unknown): boolean => err instanceof ApiError && (err.status === 401 || err.status === 403);

/** The message of a run whose every root request was refused. Names the variable, never its value. */
export const KEY_REFUSED_MESSAGE =
  'the upstream refused every request at the root of the walk (RequestValid 0 or HTTP 401/403): ' +
  'MRP_API_KEY is likely wrong, or not yet enabled for API v2';
