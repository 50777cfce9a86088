import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { runCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';
import { diffAgainstTruth } from '../helpers/warehouse.js';

const dir = mkdtempSync(join(tmpdir(), 'pitwall-drift-switch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const get = async (url: string) => (await fetch(url)).text();

describe('the simulator started with drift: true', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 33, drift: true });
  const env = () => ({ DATABASE_URL: db.url, PITWALL_LOG_LEVEL: 'warn' });

  it('needs a shapes file that drift --suggest writes, and a rebuild with it equals the unchanged truth', async () => {
    expect((await syncOnce(db, sim)).status).toBe('succeeded');
    const before = await diffAgainstTruth(db.pool, sim.url);
    expect(Object.keys(before).sort()).toEqual(expect.arrayContaining(['events', 'results']));

    const suggested = await runCli(['drift', '--suggest'], env());
    expect(suggested.code, suggested.stderr).toBe(0);
    const file = JSON.parse(suggested.stdout) as { endpoints: Record<string, Record<string, Record<string, { aliases?: string[]; coerce?: unknown[] }>>> };
    expect(file.endpoints.results?.['Classes[].Races[].Results[]']?.ResultStart).toEqual({ aliases: ['StartPosition'] });
    expect(file.endpoints.events?.['ScheduleEvents[]']?.EventDate?.coerce).toEqual([{ dateFormat: 'YYYY-MM-DDTHH:mm:ss' }]);
    // The new fields are reported, not suggested: nothing declares them.
    expect(suggested.stdout).not.toMatch(/EventUrl|ClassAbbreviation/);

    const path = join(dir, 'shapes.json');
    writeFileSync(path, suggested.stdout);
    const rebuilt = await runCli(['rebuild', '--json'], { ...env(), PITWALL_SHAPES: path });
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
  });

  it('is switched at /__simulator/drift, and off serves the declared shapes again', async () => {
    const results = `${sim.url}/v2/schedules/results/?key=${sim.key}&EventId=${String(sim.world.truth().results[0]!.event_id)}`;
    expect(await (await fetch(`${sim.url}/__simulator/drift`)).json()).toEqual({ drift: true });
    expect(await get(results)).toContain('"StartPosition":');
    const off = await fetch(`${sim.url}/__simulator/drift`, { method: 'POST', body: JSON.stringify({ drift: false }) });
    expect(await off.json()).toEqual({ drift: false });
    const body = await get(results);
    expect(body).toContain('"ResultStart":');
    expect(body).not.toContain('"StartPosition":');
    expect((await fetch(`${sim.url}/__simulator/drift`, { method: 'POST', body: '{"drift":"yes"}' })).status).toBe(400);
  });
});
