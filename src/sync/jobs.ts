import { ROOTS, type Endpoint } from './endpoints.js';
import type { WalkPlan } from './walk.js';

export const JOB_NAMES = ['full', 'season', 'live'] as const;
export type JobName = (typeof JOB_NAMES)[number];

/** `full`: every endpoint from every root; unchanged responses cost no writes. */
export function fullPlan(): WalkPlan {
  return { roots: ROOTS.map((endpoint: Endpoint) => ({ endpoint, params: {} })) };
}
