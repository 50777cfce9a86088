import { beforeAll, describe, expect, it, vi } from 'vitest';

import { loadConfig } from '../../src/config.js';
import type * as ResultsModule from '../../src/endpoints/results.js';
import { createSilentLogger } from '../../src/log.js';
import { runRebuild } from '../../src/sync/rebuild.js';
import { useResource, useWarehouse } from '../helpers/fixture.js';
import { startShapeProxy } from '../helpers/shape-proxy.js';
import { syncOnce } from '../helpers/sync.js';
import { diffAgainstTruth, fetchTruth, type Truth } from '../helpers/warehouse.js';

// The one-line change a rename is, made to the results module as a maintainer would make it:
// `start` now comes from `StartPos`. Everything else (the walk, the loader, rebuild) is the real thing.
vi.mock('../../src/endpoints/results.js', async (importOriginal) => {
  const original = await importOriginal<typeof ResultsModule>();
  const { renamedCopy } = await import('./helpers.js');
  const { field } = await import('../../src/endpoints/declare.js');
  const { optInt } = await import('../../src/api/schemas/primitives.js');
  return { ...original, results: renamedCopy(original.results, 'Classes[].Races[].Results[]', 'start', field('StartPos', optInt)) };
});

/** An upstream that sends ResultStart as StartPos; the simulator keeps its own wire names. */
const renameStart = (path: string, body: Record<string, unknown>) =>
  path === '/v2/schedules/results/' ? JSON.parse(JSON.stringify(body).replaceAll('"ResultStart":', '"StartPos":')) : undefined;

describe('a field renamed in one line of its declaration, end to end', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 12 });
  let proxyOpen = false;
  const proxy = useResource(
    'renaming proxy',
    async () => {
      const p = await startShapeProxy(sim.url, renameStart);
      proxyOpen = true;
      return p;
    },
    (p) => (proxyOpen ? p.close() : undefined),
  );
  let truth: Truth;

  beforeAll(async () => {
    truth = await fetchTruth(sim.url);
  });

  it('syncs every table equal to the truth, start included, with no field error', async () => {
    const summary = await syncOnce(db, { ...sim, url: proxy.url } as typeof sim);
    expect(summary.status).toBe('succeeded');
    expect(await diffAgainstTruth(db.pool, truth)).toEqual({});
    const { rows } = await db.pool.query<{ n: string; filled: string }>('SELECT count(*) AS n, count(start) AS filled FROM mrp.results');
    expect(Number(rows[0]!.filled)).toBeGreaterThan(0);
    expect((await db.pool.query('SELECT 1 FROM pitwall.field_errors')).rowCount).toBe(0);
  });

  it('rebuilds them from the kept bodies with the upstream stopped, equal to the truth again', async () => {
    await proxy.close();
    proxyOpen = false;
    await sim.close();
    await db.pool.query('TRUNCATE mrp.results, mrp.races CASCADE');
    const summary = await runRebuild({ pool: db.pool, config: loadConfig({ DATABASE_URL: db.url }), logger: createSilentLogger() });
    expect(summary.status).toBe('succeeded');
    expect(summary.requests).toBe(0);
    expect(await diffAgainstTruth(db.pool, truth)).toEqual({});
  });
});
