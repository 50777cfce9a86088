import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { createSilentLogger } from '../../src/log.js';
import type { JobName } from '../../src/sync/jobs.js';
import { startScheduler, type Scheduler } from '../../src/worker/scheduler.js';

const DEFAULTS = [
  { job: 'live', cron: '*/5 * * * *' },
  { job: 'season', cron: '0 * * * *' },
  { job: 'full', cron: '0 3 * * *' },
] as const;

describe('the scheduler', () => {
  let scheduler: Scheduler | undefined;
  let calls: Array<{ job: JobName; at: string }>;
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-07-15T00:00:00Z') });
    calls = [];
  });
  afterEach(() => {
    scheduler?.stop();
    vi.useRealTimers();
  });
  const record = (job: JobName) => {
    calls.push({ job, at: new Date().toISOString() });
    return Promise.resolve();
  };
  const count = (job: JobName) => calls.filter((c) => c.job === job).length;

  it('fires live every 5 minutes, season hourly and full daily at 03:00', async () => {
    scheduler = startScheduler({ jobs: DEFAULTS, timezone: 'UTC', run: record, logger: createSilentLogger() });
    await vi.advanceTimersByTimeAsync(24 * 60 * 60 * 1000);
    expect([count('live'), count('season'), count('full')]).toEqual([288, 24, 1]);
    expect(calls.find((c) => c.job === 'full')?.at).toBe('2026-07-15T03:00:00.000Z');
    expect(calls.find((c) => c.job === 'live')?.at).toBe('2026-07-15T00:05:00.000Z');
  });

  it('reads the expressions in the configured time zone', async () => {
    scheduler = startScheduler({ jobs: [DEFAULTS[2]], timezone: 'America/Chicago', run: record, logger: createSilentLogger() });
    await vi.advanceTimersByTimeAsync(24 * 60 * 60 * 1000);
    // 03:00 in Chicago in July (CDT, UTC-5) is 08:00 UTC.
    expect(calls.map((c) => c.at)).toEqual(['2026-07-15T08:00:00.000Z']);
  });

  it('never starts a job again while its previous run is still going', async () => {
    let finish: () => void = () => undefined;
    const slow = (job: JobName) => {
      calls.push({ job, at: new Date().toISOString() });
      return new Promise<void>((resolve) => (finish = resolve));
    };
    scheduler = startScheduler({ jobs: [DEFAULTS[0]], timezone: 'UTC', run: slow, logger: createSilentLogger() });
    await vi.advanceTimersByTimeAsync(5 * 60 * 1000);
    expect(count('live')).toBe(1);
    await vi.advanceTimersByTimeAsync(20 * 60 * 1000);
    expect(count('live')).toBe(1);
    finish();
    await vi.advanceTimersByTimeAsync(5 * 60 * 1000);
    expect(count('live')).toBe(2);
  });

  it('fires nothing after stop, and says it is no longer alive', async () => {
    scheduler = startScheduler({ jobs: DEFAULTS, timezone: 'UTC', run: record, logger: createSilentLogger() });
    expect(scheduler.alive()).toBe(true);
    scheduler.stop();
    scheduler.stop();
    await vi.advanceTimersByTimeAsync(60 * 60 * 1000);
    expect(calls).toEqual([]);
    expect(scheduler.alive()).toBe(false);
  });
});
