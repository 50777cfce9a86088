import { expect, it } from 'vitest';

import { createTestDatabase } from '../../helpers/db.js';

/**
 * Run only by test/run-cleanup.test.ts, with the suite's setup: opens a test database, says its
 * name, and fails without dropping it, as a file whose hooks failed before its closers ran.
 */
it('opens a database and never drops it', async () => {
  const db = await createTestDatabase();
  process.stdout.write(`left database ${new URL(db.url).pathname.slice(1)}\n`);
  await db.pool.end();
  expect('the run').toBe('failed on purpose');
});
