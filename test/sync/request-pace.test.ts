import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type pg from 'pg';
import { describe, expect, it } from 'vitest';

import { ConfigError } from '../../src/api/errors.js';
import { abortableSleep } from '../../src/api/rate-limit.js';
import { loadConfig } from '../../src/config.js';
import { createPool } from '../../src/db/pool.js';
import { loadSources } from '../../src/sources.js';
import { ALL_SOURCES, sharedRateLimiter, type PaceCaps } from '../../src/sync/sql/request-pace.js';
import { useDatabase, useResource } from '../helpers/fixture.js';

/** The most of `times` (ms) within any one second. */
function busiestSecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let end = 0, start = 0; end < sorted.length; end++) {
    while ((sorted[end] as number) - (sorted[start] as number) >= 1000) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

interface Sender {
  /** The pool stands for a process: each has its own. */
  pool: pg.Pool;
  source: string;
  caps: PaceCaps;
  /** Requests waiting for a slot at once, as a run's concurrency allows. */
  waiting: number;
}

/** Every sender's requests, taking slots for `ms`: when each slot came, per source. */
async function sendFor(ms: number, senders: readonly Sender[]): Promise<Map<string, number[]>> {
  const stop = AbortSignal.timeout(ms);
  const times = new Map(senders.map((s) => [s.source, [] as number[]]));
  await Promise.all(
    senders.flatMap(({ pool, source, caps, waiting }) => {
      const limiter = sharedRateLimiter(pool, source, caps, abortableSleep);
      return Array.from({ length: waiting }, async () => {
        // A signal per request, as each run has its own.
        const signal = AbortSignal.any([stop]);
        for (;;) {
          const took = await limiter.acquire(signal).then(
            () => true,
            () => false,
          );
          if (!took) return;
          times.get(source)?.push(performance.now());
        }
      });
    }),
  );
  return times;
}

describe('the global cap on all sources together (PITWALL_GLOBAL_MAX_RPS)', () => {
  // A warehouse per test: the cap's row carries one test's slots over into the next.
  const db = useDatabase('postgres', { perTest: true });
  // A second process's connection to the same warehouse.
  const other = useResource('a second pool', async () => createPool(db.url, { max: 4 }), (p) => p.end(), { perTest: true });

  it('holds two sources far below their own caps to the global cap together, across two processes, and uses it', async () => {
    const caps = { maxRps: 50, globalMaxRps: 5 };
    const times = await sendFor(3000, [
      { pool: db.pool, source: 'track-a', caps, waiting: 4 },
      { pool: other, source: 'track-b', caps, waiting: 4 },
    ]);
    const all = [...times.values()].flat();
    expect(busiestSecond(all)).toBeLessThanOrEqual(caps.globalMaxRps + 1);
    // 15 slots in 3 s at 5/s, the first at once: the cap is used, not only kept.
    expect(all.length).toBeGreaterThanOrEqual(14);
    for (const source of ['track-a', 'track-b']) expect(times.get(source)?.length).toBeGreaterThanOrEqual(4);
  });

  it("keeps a slow source to its own cap beneath the global one, and leaves the rest of the global cap to the others", async () => {
    const slow = { maxRps: 2, globalMaxRps: 10 };
    const fast = { maxRps: 50, globalMaxRps: 10 };
    const times = await sendFor(3000, [
      { pool: db.pool, source: 'slow', caps: slow, waiting: 4 },
      { pool: other, source: 'slow', caps: slow, waiting: 4 },
      { pool: db.pool, source: 'fast', caps: fast, waiting: 4 },
    ]);
    const all = [...times.values()].flat();
    expect(busiestSecond(times.get('slow') ?? [])).toBeLessThanOrEqual(slow.maxRps + 1);
    expect(busiestSecond(all)).toBeLessThanOrEqual(fast.globalMaxRps + 1);
    // The slow source's slots waiting ahead never hold the shared one: at 10/s for 3 s, about 30 in all.
    expect(all.length).toBeGreaterThanOrEqual(27);
  });

  it('takes no slot at all when neither cap is set, and its row is one no source can be named', async () => {
    const free = sharedRateLimiter(db.pool, 'free', { maxRps: 0, globalMaxRps: 0 }, abortableSleep);
    for (let i = 0; i < 100; i++) await free.acquire();
    const { rows } = await db.pool.query(`SELECT source FROM pitwall.request_pace WHERE source = 'free'`);
    expect(rows).toEqual([]);
    const dir = mkdtempSync(join(tmpdir(), 'pitwall-pace-'));
    try {
      const file = join(dir, 'sources.json');
      writeFileSync(file, JSON.stringify({ sources: [{ name: ALL_SOURCES, keyEnv: 'KEY_1' }] }));
      expect(() => loadSources(loadConfig({ PITWALL_SOURCES: file }), { KEY_1: 'k' })).toThrow(ConfigError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
