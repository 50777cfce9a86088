import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll } from 'vitest';

/** Where the warehouse and the simulator of a test are, as its environment names them. */
export interface SourcesTarget {
  simUrl: string;
  dbUrl: string;
}

/**
 * A PITWALL_SOURCES file naming `names` in order, the key of the i-th in variable `KEY_<i+1>`,
 * in a directory removed after the file's tests. Returns the environment of a user with that
 * file: `keys` fills the variables (none: a command that needs no key), `extra` adds settings.
 */
export function useSourcesFile(names: readonly string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'pitwall-sources-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'sources.json');
  writeFileSync(file, JSON.stringify({ sources: names.map((name, i) => ({ name, keyEnv: `KEY_${i + 1}` })) }));
  return (target: SourcesTarget, keys: readonly string[], extra: Record<string, string> = {}): Record<string, string> => ({
    PITWALL_SOURCES: file,
    MRP_API_BASE_URL: target.simUrl,
    DATABASE_URL: target.dbUrl,
    PITWALL_MAX_RPS: '0',
    PITWALL_LOG_LEVEL: 'warn',
    ...Object.fromEntries(keys.map((key, i) => [`KEY_${i + 1}`, key])),
    ...extra,
  });
}
