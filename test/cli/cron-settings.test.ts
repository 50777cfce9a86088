import { rmSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { EXIT } from '../../src/commands/context.js';
import { runCli } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { warehouseTempDir } from '../helpers/temp-dir.js';

/**
 * A cron value node-cron would throw on (or misread) stops `pitwall worker` before it starts
 * anything: one line naming the variable, exit 2, and no process left running. A worker that
 * hung instead would be killed by the bound below and show a signal, not code 2.
 */
describe('pitwall worker with a bad cron value', () => {
  it.each([
    ['0 25 * * *', 'hour 25 is out of 0-23'],
    ['*/61 * * * *', 'minute step 61 is out of 1-59'],
  ])('%s: exits 2 at once with one line', async (cron, problem) => {
    const dataDir = warehouseTempDir('pitwall-cron');
    const r = await runCli(
      ['worker'],
      {
        MRP_API_KEY: 'k',
        DATABASE_URL: `postgres://nobody@127.0.0.1:${await freePort()}/x`,
        PITWALL_DATA_DIR: dataDir,
        PITWALL_CRON_FULL: cron,
      },
      20_000,
    );
    rmSync(dataDir, { recursive: true, force: true });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr.trim().split('\n')).toEqual([`pitwall: PITWALL_CRON_FULL: expected a cron expression of 5 or 6 fields (${cron}: ${problem})`]);
  });
});
