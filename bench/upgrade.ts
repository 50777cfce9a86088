/**
 * `npm run bench:upgrade [-- --scale medium]`: how long `pitwall upgrade-warehouse` takes to move
 * an embedded warehouse made by the previous PostgreSQL major version (docs/warehouse.md), and
 * that it moved it whole: a warehouse is made with the previous binaries and one full sync of the
 * simulated world, upgraded by the real command, then compared (every table's checksum and
 * pitwall's own tables) and synced again, which must write nothing.
 */
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { createPool } from '../src/db/pool.js';
import { openEmbeddedServer } from '../src/embedded/server.js';
import { startSimulator } from '../src/simulator/server.js';
import type { Scale } from '../src/simulator/world/types.js';
import { rowsWritten } from '../src/sync/counters.js';
import { makePreviousWarehouse, warehouseState } from '../test/embedded/warehouse-17.js';
import { runCli } from '../test/helpers/cli.js';
import { syncOnce } from '../test/helpers/sync.js';
import { warehouseTempDir } from '../test/helpers/temp-dir.js';

const { values } = parseArgs({ options: { scale: { type: 'string', default: 'medium' } } });
const sim = await startSimulator({ scale: values.scale as Scale, seed: 1 });
const dir = warehouseTempDir('pitwall-bench-upgrade');
try {
  let started = performance.now();
  const before = await makePreviousWarehouse(dir, sim);
  const madeMs = performance.now() - started;
  started = performance.now();
  const upgrade = await runCli(['upgrade-warehouse'], { PITWALL_DATA_DIR: dir, PITWALL_LOG_LEVEL: 'warn' }, 600_000);
  const upgradeMs = performance.now() - started;
  if (upgrade.code !== 0) throw new Error(`upgrade-warehouse exited ${upgrade.code}: ${upgrade.stderr}`);
  const server = await openEmbeddedServer({ dir, purpose: 'the bench' });
  const pool = createPool(server.url, { max: 4 });
  try {
    const after = await warehouseState(pool);
    const same = JSON.stringify(after.checksums) === JSON.stringify(before.checksums) && JSON.stringify(after.pitwall) === JSON.stringify(before.pitwall);
    const next = await syncOnce({ pool, url: server.url }, sim);
    const rows = Object.values(before.checksums).reduce((n, c) => n + c.rows, 0);
    console.log(
      JSON.stringify({
        scale: values.scale,
        rows,
        previousWarehouseMadeMs: Math.round(madeMs),
        upgradeMs: Math.round(upgradeMs),
        equalAfterwards: same,
        nextSync: { status: next.status, requests: next.requests, rowsWritten: rowsWritten(next.tables) },
      }),
    );
  } finally {
    await pool.end();
    await server.close();
  }
} finally {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}
