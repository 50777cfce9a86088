import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { createWorld } from '../../src/simulator/world/index.js';
import { runCli } from '../helpers/cli.js';
import { warehouseTempDir } from '../helpers/temp-dir.js';

// A demo takes about 20 s on an idle two-core machine; the suite runs beside it, hence the margin.
const DEMO_MS = 180_000;

describe('pitwall demo', () => {
  const dir = warehouseTempDir('pitwall-demo');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads the small world into a fresh embedded warehouse offline and prints standings and next steps', async () => {
    // No DATABASE_URL, no API key, no network but loopback: what a fresh clone has.
    const r = await runCli(['demo', '--dir', join(dir, 'wh')], { DATABASE_URL: 'postgres://nobody@192.0.2.1:1/never' }, DEMO_MS);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    // The world's today is the machine's, so what it holds is worked out from the same world.
    const today = /today (\d{4}-\d{2}-\d{2})\)/.exec(r.stderr)?.[1];
    const now = new Date();
    expect([0, 1].map((d) => new Date(now.getFullYear(), now.getMonth(), now.getDate() - d).toLocaleDateString('sv'))).toContain(today);
    const world = createWorld({ seed: 7, scale: 'small', today: today! }).summary();
    const loaded = new RegExp(`^Loaded ${world.events} events \\(${world.eventsWithResults} with results\\), ${world.resultRows} result rows, ${world.drivers} drivers and \\d+ standings rows from \\d+ requests in [\\d.]+ s\\.$`, 'm');
    expect(r.stdout).toMatch(loaded);
    expect(r.stdout).toMatch(new RegExp(`Current standings: ${world.years.at(-1)} Weekly Points Series\nclass +pos +driver +car +points +behind\n`));
    expect(r.stdout).toMatch(/ {2}1 {2}.+ {2}0$/m);
    expect(r.stdout).toContain('npx pitwall serve-sql --port 5433');
    // One command removes what it made, its cluster too where that is kept elsewhere (as root).
    expect(r.stdout).toMatch(/^ {2}PITWALL_DATA_DIR=\S+ npx pitwall remove-warehouse --yes$/m);
    // The cookbook is named where it is, not relative to the user's directory.
    const cookbook = /more recipes in (\S+)\):/.exec(r.stdout)?.[1];
    expect(cookbook && existsSync(cookbook)).toBe(true);
    // The recipes' clock and the world's agree: no past event waits for results.
    const missing = await runCli(['sql', '--csv', '--recipe', 'events-missing-results'], { PITWALL_DATA_DIR: join(dir, 'wh') });
    expect(missing.stdout).toBe('event_id,event_date,event_name,schedule_names,class_count,classes_with_results\n');
  }, DEMO_MS);

  it('starts from an empty warehouse each time', async () => {
    const again = await runCli(['demo', '--dir', join(dir, 'wh'), '--scale', 'tiny', '--today', '2026-07-15'], {}, DEMO_MS);
    expect(again.code).toBe(0);
    const tiny = createWorld({ seed: 7, scale: 'tiny', today: '2026-07-15' }).summary();
    expect(again.stdout).toMatch(new RegExp(`^Loaded ${tiny.events} events \\(${tiny.eventsWithResults} with results\\)`));
    // Deleted rows included: a demo synced over the last one would still hold its 72 events, marked deleted.
    const events = await runCli(['sql', '--csv', 'SELECT count(*) AS n FROM mrp.events'], { PITWALL_DATA_DIR: join(dir, 'wh') });
    expect(events.stdout).toBe(`n\n${tiny.events}\n`);
  }, DEMO_MS);
});
