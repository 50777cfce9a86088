import { writeFileSync } from 'node:fs';

import { expect, it } from 'vitest';

import { openEmbeddedServer } from '../../../src/embedded/server.js';
import { warehouseTempDir } from '../../helpers/temp-dir.js';

/**
 * Starts an embedded server of its own beside the run's and never stops it, then says so in the
 * file PITWALL_TEST_READY names. With PITWALL_TEST_HOLD=fail it then fails; otherwise it waits to
 * be stopped from outside (test/run-cleanup.test.ts).
 */
it('holds a server until the run is stopped', async () => {
  await openEmbeddedServer({ dir: warehouseTempDir('pitwall-held'), purpose: 'tests' });
  writeFileSync(process.env.PITWALL_TEST_READY!, 'ready\n');
  if (process.env.PITWALL_TEST_HOLD === 'fail') expect('the run').toBe('failed on purpose');
  await new Promise(() => {});
}, 600_000);
