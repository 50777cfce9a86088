import pLimit from 'p-limit';

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
 * The limiter wraps only the visit itself; children are started outside it. Were a visit to
 * await its children inside its limiter slot, a deep tree would fill every slot with parents
 * waiting on children that can never start.
 */
export async function walk(plan: WalkPlan, options: WalkOptions): Promise<WalkResult> {
  const limit = pLimit(options.concurrency);
  // Counted so a run that was stopped can tell "stopped before the end" from "stopped after it".
  let cutShort = 0;
  const started = new Set<string>();
  const pending: Promise<void>[] = [];
  // The first failure of any branch. Recorded as it happens (a branch's promise may settle long
  // before the loop below awaits it) and rethrown once every branch has settled.
  let failure: { error: unknown } | undefined;

  const go = (endpoint: Endpoint, params: Params): void => {
    const key = `${endpoint.path}?${canonicalQuery(params)}`;
    if (started.has(key)) return;
    started.add(key);
    options.onDiscovered?.(endpoint, params);
    const branch = limit(async () => {
      if (!options.signal.aborted) return options.visit(endpoint, params);
      cutShort += 1;
      return [];
    }).then(
      (seeds) => {
        if (options.signal.aborted) {
          if (seeds.length > 0 && childrenOf(endpoint.name).length > 0) cutShort += 1;
          return;
        }
        for (const child of childrenOf(endpoint.name)) {
          for (const seed of seeds) {
            if (plan.follow && !plan.follow(child, seed)) continue;
            go(child, child.params(seed));
          }
        }
      },
      (error: unknown) => {
        failure ??= { error };
      },
    );
    pending.push(branch);
  };

  for (const root of plan.roots) go(root.endpoint, root.params);
  // `pending` grows while we wait; settle everything, so nothing writes after the walk returns.
  for (let i = 0; i < pending.length; i++) await pending[i];
  if (failure) throw failure.error;
  return { cutShort };
}
