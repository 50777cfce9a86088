import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, inject } from 'vitest';

import { readResources, settledLeaks, type LeakScope } from '../helpers/leaks.js';
import { warehouseTempDirsMade } from '../helpers/temp-dir.js';

/**
 * Fails a test file that leaves something running when it ends: a child process, an embedded
 * PostgreSQL server under a directory it made (test/helpers/temp-dir.ts), a pool's connection,
 * a listening simulator or endpoint. Runs as a setup file, so before the file's own hooks are
 * declared: its afterAll runs last, after theirs (vitest's `stack` hook order). The run's shared
 * servers (test/setup/global-db.ts, embedded-template.ts) live in another process and under
 * directories this file did not make, so they are never counted.
 */
function scope(): LeakScope {
  const dirs = warehouseTempDirsMade();
  // Absent when a run has no database (the guard's own end-to-end test runs without one).
  const adminUrl = inject('pgAdminUrl') as string | undefined;
  const ports = new Set(adminUrl ? [Number(new URL(adminUrl).port || 5432)] : []);
  for (const dir of dirs) {
    // postmaster.pid's fourth line is the port the server listens on.
    const port = Number(readOrEmpty(join(dir, 'postgres', 'postmaster.pid')).split('\n')[3]);
    if (port > 0) ports.add(port);
  }
  return { dirs, databasePorts: ports };
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

const before = readResources(scope());

afterAll(async () => {
  const leaks = await settledLeaks(before, scope());
  if (leaks.length > 0) throw new Error(`this test file left ${leaks.length} thing(s) running:\n  ${leaks.join('\n  ')}`);
});
