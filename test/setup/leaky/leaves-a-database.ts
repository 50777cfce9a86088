import { writeFileSync } from 'node:fs';

import { expect, it } from 'vitest';

import { createTestDatabase } from '../../helpers/db.js';

/**
 * Opens a test database and never drops it, as a file whose hooks failed before its closers ran,
 * then writes its name in the file PITWALL_TEST_READY names. With PITWALL_TEST_HOLD=fail it then
 * fails; otherwise it waits to be stopped from outside (test/run-cleanup.test.ts).
 */
it('opens a database and never drops it', async () => {
  const db = await createTestDatabase();
  await db.pool.end();
  writeFileSync(process.env.PITWALL_TEST_READY!, new URL(db.url).pathname.slice(1));
  if (process.env.PITWALL_TEST_HOLD === 'fail') expect('the run').toBe('failed on purpose');
  await new Promise(() => {});
}, 600_000);
