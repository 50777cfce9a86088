import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/**
 * A new temporary directory that an embedded warehouse can live in. mkdtemp makes it mode 0700;
 * when the tests run as root the embedded server runs as another user, which must pass through it.
 * The directory is remembered: a server still running under it when the test file ends was left
 * behind by this file (test/setup/leak-guard.ts).
 */
export function warehouseTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  chmodSync(dir, 0o755);
  made.push(dir);
  return dir;
}

/** The directories warehouseTempDir made in this process (a test file's, or the global setup's). */
export function warehouseTempDirsMade(): readonly string[] {
  return made;
}
