import { rmSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

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
    expect(r.stdout).toMatch(/^Loaded 72 events \(64 with results\), \d+ result rows, \d+ drivers and \d+ standings rows from \d+ requests in [\d.]+ s\.$/m);
    expect(r.stdout).toMatch(/Current standings: 2026 Weekly Points Series\nclass +pos +driver +car +points +behind\n/);
    expect(r.stdout).toMatch(/ {2}1 {2}.+ {2}0$/m);
    expect(r.stdout).toContain('npx pitwall serve-sql --port 5433');
  }, DEMO_MS);

  it('starts from an empty warehouse each time', async () => {
    const again = await runCli(['demo', '--dir', join(dir, 'wh'), '--scale', 'tiny'], {}, DEMO_MS);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^Loaded 20 events/);
    // Deleted rows included: a demo synced over the last one would still hold its 72 events, marked deleted.
    const events = await runCli(['sql', '--csv', 'SELECT count(*) AS n FROM mrp.events'], { PITWALL_DATA_DIR: join(dir, 'wh') });
    expect(events.stdout).toBe('n\n20\n');
  }, DEMO_MS);
});
