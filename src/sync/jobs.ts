import type pg from 'pg';

import { LIVE_EVENT_DETAIL } from '../endpoints/registry.js';
import type { Logger } from '../log.js';


import { endpoint, ROOTS, type Endpoint } from './endpoints.js';
import { staleFeedEvents } from './sql/feed-freshness.js';
import { pointsSchedulesOfEvents } from './sql/points-schedules-of-events.js';
import { settledEventIds } from './sql/settled-events.js';
import type { WalkPlan } from './walk.js';

export const JOB_NAMES = ['full', 'season', 'live'] as const;
export type JobName = (typeof JOB_NAMES)[number];

/** What a job reads to decide what to walk. */
export interface PlanContext {
  pool: pg.Pool;
  /** The source the run works for: a plan reads that source's rows and scopes only. */
  source: string;
  /** From the injected clock: "today" and "the current year" are never read off the wall directly. */
  now: Date;
  settleDays: number;
  /** The IANA zone the days are counted in (the cron zone). */
  timezone: string;
  logger: Logger;
}

/**
 * One walk of a job. A job's phases run in order, each planned only after the one before has
 * finished loading, so a phase can plan from what the previous one wrote. A phase that returns
 * null has nothing to do.
 */
export interface JobPhase {
  name: string;
  plan(ctx: PlanContext): Promise<WalkPlan | null>;
}

/** `YYYY-MM-DD` of `now` in `timeZone` (en-CA formats dates that way). */
export function localDay(now: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** The calendar day `days` before `day`, both `YYYY-MM-DD`; calendar arithmetic, so DST cannot shift it. */
export function daysBefore(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y ?? 1970, (m ?? 1) - 1, (d ?? 1) - days)).toISOString().slice(0, 10);
}

const settleCutoff = (ctx: PlanContext) => daysBefore(localDay(ctx.now, ctx.timezone), ctx.settleDays);
const rootsOf = (endpoints: readonly Endpoint[]): WalkPlan['roots'] => endpoints.map((e) => ({ endpoint: e, params: {} }));

/** `full`: every endpoint from every root; unchanged responses cost no writes. */
export function fullPlan(): WalkPlan {
  return { roots: rootsOf(ROOTS) };
}

/**
 * `season`: every root, but only the current and next year's schedules and points schedules
 * are followed, and per-event detail only for events that are not settled.
 */
async function seasonPlan(ctx: PlanContext): Promise<WalkPlan> {
  const year = Number(localDay(ctx.now, ctx.timezone).slice(0, 4));
  const years = new Set([year, year + 1]);
  const settled = await settledEventIds(ctx.pool, ctx.source, settleCutoff(ctx));
  ctx.logger.debug({ years: [...years], settled: settled.size }, 'season plan');
  return {
    roots: rootsOf(ROOTS),
    follow: (child, seed) => {
      if (child.name === 'schedules' || child.name === 'point_schedules') return seed.year !== undefined && years.has(seed.year);
      if (child.parent === 'events') return seed.eventId !== undefined && !settled.has(seed.eventId);
      return true;
    },
  };
}

/**
 * `live`, in three phases: (1) the latest-results feed; (2) results, lineups and passes of the
 * feed's events whose detail is older than their feed rows (so nothing but the feed is fetched
 * when nothing was posted); (3) the points schedules counting those events, every class of
 * each (a new result moves PointsAsOf in every class of the schedule, not just the event's
 * classes), and the driver statistics.
 */
function livePhases(): JobPhase[] {
  let refreshed: number[] = [];
  return [
    { name: 'feed', plan: async () => ({ roots: [{ endpoint: endpoint('results_feed'), params: {} }] }) },
    {
      name: 'events',
      plan: async (ctx) => {
        const [stale, settled] = await Promise.all([
          staleFeedEvents(ctx.pool, ctx.source, LIVE_EVENT_DETAIL.map((e) => e.name)),
          settledEventIds(ctx.pool, ctx.source, settleCutoff(ctx)),
        ]);
        refreshed = stale.filter((id) => !settled.has(id));
        ctx.logger.info({ events: refreshed }, refreshed.length ? 'refreshing events named by the feed' : 'feed names nothing new');
        if (refreshed.length === 0) return null;
        const detail = LIVE_EVENT_DETAIL.map((e) => endpoint(e.name));
        return { roots: refreshed.flatMap((eventId) => detail.map((e) => ({ endpoint: e, params: e.params({ eventId }) }))) };
      },
    },
    {
      name: 'standings',
      plan: async (ctx) => {
        if (refreshed.length === 0) return null;
        const schedules = await pointsSchedulesOfEvents(ctx.pool, ctx.source, refreshed);
        const classes = endpoint('point_classes');
        // Children come from the endpoint table: point_classes fans out to every class's standings.
        return {
          roots: [
            ...schedules.map((scheduleId) => ({ endpoint: classes, params: classes.params({ scheduleId }) })),
            { endpoint: endpoint('driver_stats'), params: {} },
          ],
        };
      },
    },
  ];
}

/** The phases of one run of `job`; fresh state per call. */
export function jobPhases(job: JobName): JobPhase[] {
  switch (job) {
    case 'full':
      return [{ name: 'walk', plan: async () => fullPlan() }];
    case 'season':
      return [{ name: 'walk', plan: seasonPlan }];
    case 'live':
      return livePhases();
  }
}
