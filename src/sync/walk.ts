import { canonicalQuery } from '../api/query.js';

import { childrenOf, type Endpoint, type Params } from './endpoints.js';
import type { Seed } from './extract/types.js';

export interface WalkPlan {
  /** Where the walk starts, each with the params of its first request. */
  roots: ReadonlyArray<{ endpoint: Endpoint; params: Params }>;
  /** Whether to fan out from a seed into a child endpoint (jobs use it to skip settled events). */
  follow?: (child: Endpoint, seed: Seed) => boolean;
}

export interface WalkOptions {
  concurrency: number;
  /** Stops the walk starting visits (a drain); visits already running are left to finish. */
  signal: AbortSignal;
  /** Fetches and loads one request; returns the seeds its children fan out from. */
  visit: (endpoint: Endpoint, params: Params) => Promise<Seed[]>;
  /** Called when a request is discovered, so progress can show a growing known total. */
  onDiscovered?: (endpoint: Endpoint, params: Params) => void;
}

export interface WalkResult {
  /** Visits the signal kept from starting, plus finished visits whose children it kept from starting. */
  cutShort: number;
}

/**
 * Walks the endpoint tree from the plan's roots. At most `concurrency` visits run at once, and no
 * path+query is visited twice in one walk: an event listed by two schedules is fetched once.
 *
 * A scope found is queued as plain data (its endpoint and params) and becomes a visit only when a
 * slot is free; children are queued once their parent's visit has returned, so no visit ever
 * waits on another. A queue of promises (one per scope found, as p-limit keeps) cost some 1.2 KB
 * per scope waiting, and a full walk's frontier is most of its site: with a hundred runs at once,
 * that was a fifth of the worker's live heap.
 */
export async function walk(plan: WalkPlan, options: WalkOptions): Promise<WalkResult> {
  const { concurrency, signal } = options;
  if (!(Number.isInteger(concurrency) && concurrency >= 1)) throw new RangeError(`walk concurrency must be an integer >= 1, got ${concurrency}`);
  // Counted so a run that was stopped can tell "stopped before the end" from "stopped after it".
  let cutShort = 0;
  const started = new Set<string>();
  // Scopes found and not yet visited, oldest first; `next` is the oldest's index.
  let queue: Array<{ endpoint: Endpoint; params: Params }> = [];
  let next = 0;
  let running = 0;
  // The first failure of any visit. The walk goes on with the others and rethrows it once every
  // visit has settled, so nothing writes after the walk returns.
  let failure: { error: unknown } | undefined;
  let settled!: () => void;
  const done = new Promise<void>((resolve) => (settled = resolve));

  const go = (endpoint: Endpoint, params: Params): void => {
    const key = `${endpoint.path}?${canonicalQuery(params)}`;
    if (started.has(key)) return;
    started.add(key);
    options.onDiscovered?.(endpoint, params);
    queue.push({ endpoint, params });
  };

  const visit = async (endpoint: Endpoint, params: Params): Promise<void> => {
    try {
      const seeds = await options.visit(endpoint, params);
      if (signal.aborted) {
        if (seeds.length > 0 && childrenOf(endpoint.name).length > 0) cutShort += 1;
      } else {
        for (const child of childrenOf(endpoint.name)) {
          for (const seed of seeds) {
            if (plan.follow && !plan.follow(child, seed)) continue;
            go(child, child.params(seed));
          }
        }
      }
    } catch (error) {
      failure ??= { error };
    }
    running -= 1;
    fill();
  };

  /** Starts queued visits while slots are free; a stop turns each one left into a cut-short scope. */
  const fill = (): void => {
    while (running < concurrency && next < queue.length) {
      const scope = queue[next]!;
      next += 1;
      if (signal.aborted) {
        cutShort += 1;
        continue;
      }
      running += 1;
      void visit(scope.endpoint, scope.params);
    }
    // Drop what was visited: the queue holds only the frontier.
    if (next === queue.length) {
      queue = [];
      next = 0;
    } else if (next >= 1024 && next * 2 >= queue.length) {
      queue = queue.slice(next);
      next = 0;
    }
    if (running === 0 && next === queue.length) settled();
  };

  for (const root of plan.roots) go(root.endpoint, root.params);
  fill();
  await done;
  if (failure) throw failure.error;
  return { cutShort };
}
