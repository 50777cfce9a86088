import { setTimeout as sleep } from 'node:timers/promises';

import type pg from 'pg';

import type { JobName } from '../../sync/jobs.js';
import { finishedRunSince, fireQueuedAt, queueFire } from '../../sync/sql/job-fires.js';
import type { RunSummary } from '../../sync/summary.js';

/** How often a queued catch-up looks whether its run has ended. */
const CATCH_UP_POLL_MS = 1_000;

/**
 * Queues a schedule's fire of a source's job, named by its scheduled time to the second (which
 * every worker firing the schedule computes alike): the engine job's id, or null when another
 * worker queued this fire first.
 */
export async function queueCronFire(pool: pg.Pool, source: string, job: JobName, firedAt: Date): Promise<string | null> {
  const fire = new Date(Math.floor(firedAt.getTime() / 1000) * 1000).toISOString();
  return (await queueFire(pool, { source, job, trigger: 'cron', fire }))?.id ?? null;
}

/**
 * A start-up catch-up through the queue: queued once whatever the number of workers deciding it,
 * then awaited by every worker that decided it, by reading its run's outcome, so that each waits
 * for a full catch-up before it looks at live and season. `interrupted` when `signal` aborts the
 * wait (the worker stops); the queued job goes on without it.
 */
export async function catchUpThroughQueue(
  pool: pg.Pool,
  source: string,
  job: JobName,
  fire: string,
  signal: AbortSignal,
): Promise<{ status: RunSummary['status'] }> {
  const spec = { source, job, trigger: 'catch-up' as const, fire };
  const queuedAt = (await queueFire(pool, spec))?.queuedAt ?? (await fireQueuedAt(pool, spec));
  // Replaced by a later fire: that one's run catches the job up.
  if (queuedAt === null) return { status: 'skipped' };
  while (!signal.aborted) {
    const status = await finishedRunSince(pool, source, job, queuedAt);
    if (status !== null) return { status: status as RunSummary['status'] };
    await sleep(CATCH_UP_POLL_MS, undefined, { signal }).catch(() => undefined);
  }
  return { status: 'interrupted' };
}
