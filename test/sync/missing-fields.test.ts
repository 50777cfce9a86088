import { describe, expect, it } from 'vitest';

import { loadStatusPage } from '../../src/observability/status-page/data.js';
import { renderStatusPage } from '../../src/observability/status-page/html.js';
import { useDatabase, useResource, useSimulator } from '../helpers/fixture.js';
import { startShapeProxy } from '../helpers/shape-proxy.js';
import { syncOnce } from '../helpers/sync.js';

const ROW = 'Classes[].Races[].Results[]';

/** An upstream that sends ResultStart as StartPos from now on. */
const renameStart = (path: string, body: Record<string, unknown>) =>
  path === '/v2/schedules/results/' ? JSON.parse(JSON.stringify(body).replaceAll('"ResultStart":', '"StartPos":')) : undefined;

describe('a modelled field missing from every item', () => {
  const sim = useSimulator({ scale: 'tiny', seed: 21 });
  const db = useDatabase('postgres');
  const first = useDatabase('postgres');
  const proxy = useResource('renaming proxy', () => startShapeProxy(sim.url, renameStart), (p) => p.close());
  const through = () => ({ ...sim, url: proxy.url }) as typeof sim;
  const mark = async () =>
    (await db.pool.query<{ m: string | null }>(`SELECT missing_since_run_id AS m FROM pitwall.shape_paths WHERE endpoint = 'results' AND path = $1`, [`${ROW}.ResultStart`])).rows[0]?.m ?? null;

  it('is never reported for the shapes the simulator sends', async () => {
    const s = await syncOnce(db, sim);
    expect(s.status).toBe('succeeded');
    expect(s.missingFields).toEqual([]);
  });

  it('is a warning in the summary once it goes missing, naming the new field beside it, and once only', async () => {
    const renamed = await syncOnce(db, through());
    expect(renamed.missingFields).toEqual([{ endpoint: 'results', path: `${ROW}.ResultStart`, kind: 'vanished', candidates: [`${ROW}.StartPos`] }]);
    expect(await mark()).toBe(String(renamed.runId));
    const page = await loadStatusPage(db.pool, { secrets: [] });
    expect(page.missing_fields).toEqual([{ source: 'default', endpoint: 'results', path: `${ROW}.ResultStart`, since_run_id: renamed.runId }]);
    expect(renderStatusPage(page)).toContain(`${ROW}.ResultStart`);
    // New results arrive, still without the field: not warned again.
    sim.world.advanceDays(14);
    const again = await syncOnce(db, through());
    expect(again.scopes.loaded).toBeGreaterThan(0);
    expect(again.missingFields).toEqual([]);
  });

  it('is cleared when the field comes back, so a later disappearance warns again', async () => {
    sim.world.advanceDays(7);
    expect((await syncOnce(db, sim)).missingFields).toEqual([]);
    expect(await mark()).toBeNull();
    expect((await loadStatusPage(db.pool, { secrets: [] })).missing_fields).toEqual([]);
  });

  it('on a first sync, is a warning when a field is never sent while a likely new name of it is', async () => {
    const s = await syncOnce(first, through());
    expect(s.missingFields).toEqual([{ endpoint: 'results', path: `${ROW}.ResultStart`, kind: 'never-seen', candidates: [`${ROW}.StartPos`] }]);
  });
});
