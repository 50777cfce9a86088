import { describe, expect, it } from 'vitest';

import { catchUpDelayMs } from '../../src/worker/catch-up-delay.js';
import { catchUpsToRun, coveredLastSuccess, decideCatchUp } from '../../src/worker/catch-up-plan.js';
import { catchUpFire, catchingUpMessage } from '../../src/worker/catch-up.js';

const MIN = 60_000;
const at = (iso: string) => new Date(iso);
const NOW = at('2026-11-23T21:40:00Z');
const STALE_MS = 15_000;

describe('catchUpDelayMs', () => {
  it('is nothing before a failure, 5 minutes after one, doubling per failure up to 6 hours', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 1000].map((n) => catchUpDelayMs(n) / MIN)).toEqual([0, 5, 10, 20, 40, 80, 160, 320, 360, 360]);
  });
});

describe('decideCatchUp', () => {
  it('runs a job that never succeeded', () => {
    expect(decideCatchUp('full', at('2026-11-23T03:00:00Z'), undefined, undefined, NOW, STALE_MS)).toMatchObject({ action: 'run' });
  });

  it('runs a job whose last success is older than its schedule\'s last fire, and leaves a newer one alone', () => {
    const fired = at('2026-11-23T03:00:00Z');
    expect(decideCatchUp('full', fired, at('2026-11-22T04:10:00Z'), { failedCatchUps: 0 }, NOW, STALE_MS).action).toBe('run');
    expect(decideCatchUp('full', fired, at('2026-11-23T04:10:00Z'), { failedCatchUps: 0 }, NOW, STALE_MS).action).toBe('none');
  });

  it('leaves a job that has succeeded alone while its schedule has never fired', () => {
    expect(decideCatchUp('live', null, at('2020-01-01T00:00:00Z'), { failedCatchUps: 0 }, NOW, STALE_MS).action).toBe('none');
  });

  it('runs again at once after a first catch-up that died, and backs off from a second death as from a failure', () => {
    const died = at('2026-11-23T21:39:00Z');
    expect(decideCatchUp('full', null, undefined, { failedCatchUps: 1, abandonedCatchUps: 1, lastFailedAt: died }, NOW, STALE_MS).action).toBe('run');
    expect(decideCatchUp('full', null, undefined, { failedCatchUps: 2, abandonedCatchUps: 2, lastFailedAt: died }, NOW, STALE_MS)).toMatchObject({
      action: 'wait',
      reason: 'backoff',
      failedCatchUps: 2,
      retryAt: new Date(died.getTime() + catchUpDelayMs(1)),
    });
    // A failure is never forgiven: a death beside it forgives only itself.
    expect(decideCatchUp('full', null, undefined, { failedCatchUps: 1, abandonedCatchUps: 0, lastFailedAt: died }, NOW, STALE_MS).action).toBe('wait');
    expect(decideCatchUp('full', null, undefined, { failedCatchUps: 2, abandonedCatchUps: 1, lastFailedAt: died }, NOW, STALE_MS)).toMatchObject({
      retryAt: new Date(died.getTime() + catchUpDelayMs(1)),
    });
  });

  it('waits the backoff after failed catch-ups, from the last one, then runs', () => {
    const history = { failedCatchUps: 3, lastFailedAt: at('2026-11-23T21:30:00Z') };
    expect(decideCatchUp('full', null, undefined, history, NOW, STALE_MS)).toEqual({
      job: 'full',
      action: 'wait',
      reason: 'backoff',
      lastSuccess: undefined,
      lastFired: null,
      failedCatchUps: 3,
      retryAt: at('2026-11-23T21:50:00Z'),
    });
    expect(decideCatchUp('full', null, undefined, history, at('2026-11-23T21:50:00Z'), STALE_MS).action).toBe('run');
  });

  it('names each catch-up so that a retry, or a later schedule fire, sorts after the one before', () => {
    const fired = at('2026-11-23T03:00:00Z');
    const first = decideCatchUp('full', fired, undefined, { failedCatchUps: 0 }, NOW, STALE_MS);
    const retry = decideCatchUp('full', fired, undefined, { failedCatchUps: 1, lastFailedAt: at('2026-11-23T20:00:00Z') }, NOW, STALE_MS);
    const never = decideCatchUp('full', null, undefined, { failedCatchUps: 0 }, NOW, STALE_MS);
    if (first.action !== 'run' || retry.action !== 'run' || never.action !== 'run') throw new Error('expected three catch-ups to run');
    expect(catchUpFire(first)).toBe('2026-11-23T03:00:00.000Z#000000');
    expect(catchUpFire(retry) > catchUpFire(first)).toBe(true);
    expect(catchUpFire(first) > catchUpFire(never)).toBe(true);
  });

  it('is read back by the worker that runs the catch-up into what it says', () => {
    expect(catchingUpMessage('full', '2026-11-23T03:00:00.000Z#000000')).toBe('catching up: full, schedule last fired 2026-11-23T03:00:00.000Z');
    expect(catchingUpMessage('live', '2026-11-23T03:00:00.000Z#000002')).toBe('catching up: live, schedule last fired 2026-11-23T03:00:00.000Z, after 2 failed catch-up(s)');
    expect(catchingUpMessage('full', '1970-01-01T00:00:00.000Z#000000')).toBe('catching up: full, schedule not fired yet');
  });
});

describe('decideCatchUp with a run of the job recorded running', () => {
  it('leaves the job to it while it is alive by the rule on dead runs (a fresh heartbeat)', () => {
    const run = { runId: 7, here: false, host: 'other', pid: 41 };
    const running = { lastBeatAt: at('2026-11-23T21:39:58Z'), alive: true, run };
    expect(decideCatchUp('full', null, undefined, { failedCatchUps: 0, running }, NOW, STALE_MS)).toEqual({ job: 'full', action: 'elsewhere', run });
  });

  it('looks again a second past staleness when the database already called it dead but this machine\'s clock does not, so the clocks never disagree on it', () => {
    const running = { lastBeatAt: at('2026-11-23T21:39:58Z'), alive: false, run: { runId: 7, here: false, host: 'other', pid: 41 } };
    expect(decideCatchUp('full', null, undefined, { failedCatchUps: 0, running }, NOW, STALE_MS)).toMatchObject({
      action: 'wait',
      reason: 'unconfirmed',
      retryAt: at('2026-11-23T21:40:14Z'),
    });
  });
});

describe('coveredLastSuccess', () => {
  it('counts a newer full success for live and season, not the other way round', () => {
    const history = {
      full: { failedCatchUps: 0, lastSuccess: at('2026-11-23T04:00:00Z') },
      live: { failedCatchUps: 0, lastSuccess: at('2026-11-23T21:35:00Z') },
    };
    expect(coveredLastSuccess('season', history)).toEqual(at('2026-11-23T04:00:00Z'));
    expect(coveredLastSuccess('live', history)).toEqual(at('2026-11-23T21:35:00Z'));
    expect(coveredLastSuccess('full', { live: history.live })).toBeUndefined();
  });
});

describe('catchUpsToRun', () => {
  const run = (job: 'full' | 'season' | 'live') => ({ job, action: 'run' as const, lastFired: null, failedCatchUps: 0 });
  it('runs a due full alone, so live and season wait for it', () => {
    expect(catchUpsToRun([run('live'), run('season'), run('full')]).map((d) => d.job)).toEqual(['full']);
  });

  it('holds live and season while a full runs in another process, whose success covers them', () => {
    const going = { runId: 7, here: false, host: 'h', pid: 1 };
    expect(catchUpsToRun([run('live'), run('season'), { job: 'full', action: 'elsewhere', run: going }])).toEqual([]);
  });

  it('holds live and season while a full\'s dead run is yet to be confirmed: the full runs again first', () => {
    const unconfirmed = { job: 'full' as const, action: 'wait' as const, reason: 'unconfirmed' as const, lastFired: null, failedCatchUps: 0, retryAt: NOW };
    expect(catchUpsToRun([run('live'), run('season'), unconfirmed])).toEqual([]);
  });

  it('runs the others when full is current or backing off', () => {
    const waiting = { job: 'full' as const, action: 'wait' as const, reason: 'backoff' as const, lastFired: null, failedCatchUps: 1, retryAt: NOW };
    expect(catchUpsToRun([run('live'), run('season'), waiting]).map((d) => d.job)).toEqual(['live', 'season']);
    expect(catchUpsToRun([{ job: 'full', action: 'none' }, run('live')]).map((d) => d.job)).toEqual(['live']);
  });
});
