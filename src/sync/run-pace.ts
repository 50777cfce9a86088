import { takeGuestPlace } from '../coordination/guest.js';
import { FIRST_RANK, ProcessPace, type Rank } from '../coordination/pace.js';

import type { RunContext } from './run-shell.js';
import type { SyncDeps } from './types.js';

/**
 * The pace a sync run keeps: its worker's (the worker owns the source and paces it in memory), or,
 * for a run of its own (a manual sync), a guest's: when a worker owns the source, the run takes an
 * equal share of the source's rate and starts once the worker has seen it (one beat). Either way the
 * run is ranked among its process's sources for the global cap's turns (turnRank).
 */
export async function withPace<T>(deps: SyncDeps, run: RunContext, work: (pace: ProcessPace) => Promise<T>): Promise<T> {
  const ranked = (pace: ProcessPace) => pace.working(run.source, turnRank(run), () => work(pace));
  if (deps.coordination) return ranked(deps.coordination.pace);
  const guest = await takeGuestPlace(deps.pool, [run.source], { globalCap: deps.config.globalMaxRps > 0 });
  try {
    if (guest.beside) run.logger.info('a worker owns this source: this run shares its rate with it, from the worker\'s next beat');
    await guest.ready(run.halt).catch(() => undefined);
    return await ranked(new ProcessPace(guest.shares));
  } finally {
    await guest.leave();
  }
}

/**
 * A run's place when its process's sources wait for the global cap's turn: `live` and `season`
 * runs first (small, and a schedule waits on them), then fulls, the least advanced first
 * (scopes done over scopes found so far), so that fulls begun together end together.
 */
function turnRank(run: RunContext): Rank {
  if (run.job !== 'full') return () => FIRST_RANK;
  return () => (run.scopes.total === 0 ? 0 : run.scopes.done / run.scopes.total);
}
