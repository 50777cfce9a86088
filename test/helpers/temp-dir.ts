import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A new temporary directory that an embedded warehouse can live in. mkdtemp makes it mode 0700;
 * when the tests run as root the embedded server runs as another user, which must pass through it.
 */
export function warehouseTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  chmodSync(dir, 0o755);
  return dir;
}
