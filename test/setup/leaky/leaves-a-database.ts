import { writeFileSync } from 'node:fs';

import { expect, it } from 'vitest';

import { createTestDatabase } from '../../helpers/db.js';

/**
 * Run only by test/run-cleanup.test.ts, with the suite's setup: opens a test database and never
 * drops it, as a file whose hooks failed before its closers ran. Then it fails; or, when
 * PITWALL_TEST_READY names a file, writes the database's name there and waits to be killed.
 */
it('opens a database and never drops it', async () => {
  const db = await createTestDatabase();
  const name = new URL(db.url).pathname.slice(1);
  process.stdout.write(`left database ${name}\n`);
  await db.pool.end();
  if (process.env.PITWALL_TEST_READY) {
    writeFileSync(process.env.PITWALL_TEST_READY, name);
    await new Promise(() => {});
  }
  expect('the run').toBe('failed on purpose');
}, 600_000);
