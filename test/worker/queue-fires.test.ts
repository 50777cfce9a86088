import { beforeAll, describe, expect, it } from 'vitest';

import { createSilentLogger } from '../../src/log.js';
import { finishedRunSince, queueFire } from '../../src/sync/sql/job-fires.js';
import { migrateJobQueue } from '../../src/worker/queue/engine.js';
import { useDatabase } from '../helpers/fixture.js';

const at = (iso: string) => `${iso}.000Z`;

describe('schedule fires on the job queue', () => {
  const db = useDatabase();
  beforeAll(async () => {
    await migrateJobQueue(db.pool, createSilentLogger());
  });

  const jobs = async () =>
    (await db.pool.query<{ id: string; queue_name: string; key: string }>(`SELECT id::text, queue_name, key FROM graphile_worker.jobs ORDER BY id`)).rows;

  it('queues one job per fire, whichever worker fires first, and never an older fire', async () => {
    const fire = { source: 'track-a', job: 'live', trigger: 'cron' as const, fire: at('2026-11-24T10:05:00') };
    const first = await Promise.all([queueFire(db.pool, fire), queueFire(db.pool, fire), queueFire(db.pool, fire)]);
    expect(first.filter((q) => q !== null)).toHaveLength(1);
    expect(await queueFire(db.pool, { ...fire, fire: at('2026-11-24T10:00:00') })).toBeNull();
    expect(await jobs()).toEqual([{ id: first.find((q) => q !== null)!.id, queue_name: 'pitwall:track-a:live', key: 'pitwall:track-a:live' }]);
  });

  it('coalesces a later fire with the job still waiting, and keeps sources and jobs apart', async () => {
    const waiting = (await jobs())[0]!;
    const later = await queueFire(db.pool, { source: 'track-a', job: 'live', trigger: 'cron', fire: at('2026-11-24T10:10:00') });
    expect(later?.id).toBe(waiting.id);
    await queueFire(db.pool, { source: 'track-b', job: 'live', trigger: 'cron', fire: at('2026-11-24T10:10:00') });
    await queueFire(db.pool, { source: 'track-a', job: 'season', trigger: 'cron', fire: at('2026-11-24T10:00:00') });
    expect((await jobs()).map((j) => j.queue_name).sort()).toEqual(['pitwall:track-a:live', 'pitwall:track-a:season', 'pitwall:track-b:live']);
  });

  it('waits for the run that ends a queued job, of any trigger, past runs that handed it back', async () => {
    const since = (await db.pool.query<{ now: Date }>('SELECT now()')).rows[0]!.now;
    const run = (status: string, trigger: string, source = 'track-a') =>
      db.pool.query(`INSERT INTO pitwall.sync_runs (source, job, trigger, status, host, pid) VALUES ($1, 'full', $2, $3, 'h', 1)`, [source, trigger, status]);
    expect(await finishedRunSince(db.pool, 'track-a', 'full', since)).toBeNull();
    await run('interrupted', 'catch-up');
    await run('abandoned', 'catch-up');
    await run('succeeded', 'catch-up', 'track-b');
    expect(await finishedRunSince(db.pool, 'track-a', 'full', since)).toBeNull();
    // A later schedule fire replaced the catch-up's job: its run ends the wait as well.
    await run('succeeded', 'cron');
    expect(await finishedRunSince(db.pool, 'track-a', 'full', since)).toBe('succeeded');
  });
});
