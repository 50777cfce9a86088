import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DatabaseError } from '../../src/db/errors.js';
import { createPool } from '../../src/db/pool.js';
import type { RunSummary } from '../../src/sync/run.js';
import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';
import { terminateBackends } from '../helpers/terminate-backends.js';
import { diffAgainstTruth, fetchTruth } from '../helpers/warehouse.js';

import { captureVersions, halfWrittenScopes, type Versions } from './helpers/scope-versions.js';

/**
 * PostgreSQL connections dropped under a running sync, by pg_terminate_backend from a separate
 * admin connection (what a failover, a restart or an operator does). Each run must end in a
 * clean retry (the transaction runs again on a fresh connection) or a clean failure classified
 * by SQLSTATE, never a crash and never a scope with rows of two versions; the next run heals it.
 */

const SOAK = Boolean(process.env.PITWALL_SOAK);
const ENV = { PITWALL_RETRY_BASE_MS: '5', PITWALL_CONCURRENCY: '4' };

const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 17 });
let admin: ReturnType<typeof createPool>;
let versions: Versions;
beforeAll(async () => {
  admin = createPool(db.url, { max: 1, applicationName: 'reliability-admin' });
  expect((await syncOnce(db, sim, { env: ENV })).status).toBe('succeeded');
  versions = await captureVersions(db.pool, sim);
});
afterAll(async () => {
  await admin?.end();
});

/** Terminates every other backend of the test database; returns how many it hit. */
const terminateAll = async (): Promise<number> => (await terminateBackends(admin)).length;

/** Terminates the backend holding pitwall's advisory lock for the `full` job. */
const terminateLockHolder = async (): Promise<number> =>
  (await terminateBackends(admin, `pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = 730511 AND objid = 1 AND granted)`)).length;

/** Changes the upstream, so the next run rewrites many scopes: a drop lands mid-write. */
async function changeUpstream(round: number): Promise<void> {
  const truth = await fetchTruth(sim.url);
  const drivers = (truth.drivers ?? []).slice(round * 7, round * 7 + 7) as Array<{ driver_id: number }>;
  for (const d of drivers) sim.world.renameDriver(d.driver_id, { lastName: `Renamed${round}x${d.driver_id}` });
  versions = await captureVersions(db.pool, sim, versions);
}

/** One sync with `drop` fired at each of the given progress points; the run's outcome or its error. */
async function syncWithDrops(at: number[], drop: () => Promise<number>): Promise<{ summary?: RunSummary; error?: unknown; dropped: number }> {
  let dropped = 0;
  const fired = new Set<number>();
  const failures: unknown[] = [];
  const pending: Promise<void>[] = [];
  sim.setFaults({ latencyMs: 15 });
  try {
    const summary = await syncOnce(db, sim, {
      env: ENV,
      onProgress: ({ done }) => {
        // Progress is reported as requests are discovered too; fire each point once.
        if (!at.includes(done) || fired.has(done)) return;
        fired.add(done);
        pending.push(drop().then((n) => void (dropped += n), (err: unknown) => void failures.push(err)));
      },
    });
    await Promise.all(pending);
    if (failures.length > 0) throw failures[0];
    return { summary, dropped };
  } catch (error) {
    await Promise.all(pending);
    return { error, dropped };
  } finally {
    sim.setFaults({});
  }
}

describe('connections dropped mid-run', () => {
  const rounds = SOAK ? 12 : 3;
  it.each(Array.from({ length: rounds }, (_, i) => [i + 1]))('round %i: a clean retry or a clean failure, never a half-written scope', async (round) => {
    await changeUpstream(round);
    const points = [3 + round, 20 + round * 3, 45 + round * 5, 80 + round];
    const { summary, error, dropped } = await syncWithDrops(points, terminateAll);
    expect(dropped).toBeGreaterThan(0);
    console.info(`database trouble, round ${round}: ${dropped} backends dropped; run ${summary ? `${summary.status}${summary.error ? ` (${summary.error})` : ''}` : `threw ${String(error)}`}`);
    if (error !== undefined) {
      // A failure must be a classified one.
      expect(error).toBeInstanceOf(DatabaseError);
      expect((error as DatabaseError).sqlstate ?? (error as { code?: string }).code).toBeTruthy();
    } else {
      expect(['succeeded', 'failed']).toContain(summary!.status);
      if (summary!.status === 'failed') expect(summary!.error).toMatch(/57P01|database|connection/i);
    }
    expect(await halfWrittenScopes(db.pool, versions)).toEqual([]);
    const follow = await syncOnce(db, sim, { env: ENV });
    expect(follow.status).toBe('succeeded');
    expect(await halfWrittenScopes(db.pool, versions)).toEqual([]);
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
    const stuck = await db.pool.query(`SELECT count(*)::int AS n FROM pitwall.sync_runs WHERE status = 'running'`);
    expect(stuck.rows[0].n).toBe(0);
  });

  it('stops as failed, the warehouse\'s failure, committed work kept, when its lock session alone is dropped; the next run completes it', async () => {
    await changeUpstream(99);
    const { summary, error, dropped } = await syncWithDrops([10], terminateLockHolder);
    expect(error).toBeUndefined();
    expect(dropped).toBe(1);
    // Its job lock was gone with the session: going on could run beside whoever took it next.
    expect(summary).toMatchObject({ status: 'failed', databaseFailure: true, error: expect.stringMatching(/lost the lock session/) });
    expect(await halfWrittenScopes(db.pool, versions)).toEqual([]);
    const follow = await syncOnce(db, sim, { env: ENV });
    expect(follow.status).toBe('succeeded');
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });

  it('stops as failed, committed work kept, when another session takes the lock meanwhile', async () => {
    await changeUpstream(98);
    const thief = createPool(db.url, { max: 1, applicationName: 'reliability-thief' });
    // The other session queues for the lock first, so PostgreSQL hands it over the moment the
    // holder's backend exits: pitwall, which learns of the drop over the wire, always comes second.
    const steal = async (): Promise<number> => {
      const granted = thief.query('SELECT pg_advisory_lock(730511, 1)');
      for (let waiting = 0; waiting === 0; ) {
        const { rows } = await admin.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid)
            WHERE l.locktype = 'advisory' AND l.classid = 730511 AND l.objid = 1 AND NOT l.granted AND a.application_name = 'reliability-thief'`,
        );
        waiting = rows[0]!.n;
      }
      const n = await terminateLockHolder();
      await granted;
      return n;
    };
    try {
      const { summary, error } = await syncWithDrops([30], steal);
      expect(error).toBeUndefined();
      expect(summary!.status).toBe('failed');
      expect(summary!.error).toMatch(/lost the lock session/);
      expect(await halfWrittenScopes(db.pool, versions)).toEqual([]);
    } finally {
      // Unlock before closing: a closed client's backend lets go of its session locks only once
      // it has exited, which can be after the next run has already tried the lock.
      await thief.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
      await thief.end();
    }
    const follow = await syncOnce(db, sim, { env: ENV });
    expect(follow.status).toBe('succeeded');
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });
});
