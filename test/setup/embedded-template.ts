import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { TestProject } from 'vitest/node';

import { loadConfig } from '../../src/config.js';
import { openWarehouse } from '../../src/db/open-warehouse.js';
import { createSilentLogger } from '../../src/log.js';

/**
 * Once per test run: one embedded (PGlite) warehouse, created and migrated, whose directory the
 * test files copy for a fresh warehouse each — the embedded twin of the migrated template
 * database. Creating a PGlite cluster (initdb) takes seconds; copying one takes milliseconds.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    embeddedTemplateDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'pitwall-embedded-template-'));
  const warehouse = await openWarehouse(loadConfig({ PITWALL_DATA_DIR: dir }), createSilentLogger());
  await warehouse.close();
  project.provide('embeddedTemplateDir', dir);
  return async () => rmSync(dir, { recursive: true, force: true });
}
