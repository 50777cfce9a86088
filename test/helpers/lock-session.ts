import type pg from 'pg';
import { onTestFinished } from 'vitest';

import { LockSession } from '../../src/coordination/lock-session.js';

/** A lock session on `pool` (as a process of `role` opens one), closed when the test ends. */
export async function openLockSession(pool: pg.Pool, role = 'worker'): Promise<LockSession> {
  const session = await LockSession.open(pool, role);
  onTestFinished(() => session.close());
  return session;
}
