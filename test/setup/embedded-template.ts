import { rmSync } from 'node:fs';

import type { TestProject } from 'vitest/node';

import { loadConfig } from '../../src/config.js';
import { openWarehouse } from '../../src/db/open-warehouse.js';
import { createSilentLogger } from '../../src/log.js';
import { warehouseTempDir } from '../helpers/temp-dir.js';

/**
 * Once per test run: one embedded warehouse, created and migrated, whose directory the test
 * files copy for a fresh warehouse each — the embedded twin of the migrated template database.
 * initdb takes seconds; copying a stopped server's data directory takes milliseconds.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    embeddedTemplateDir: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = warehouseTempDir('pitwall-embedded-template');
  // Closing the last client stops the server, so the copies start from a cleanly shut-down cluster.
  const warehouse = await openWarehouse(loadConfig({ PITWALL_DATA_DIR: dir }), createSilentLogger(), { purpose: 'template' });
  await warehouse.close();
  project.provide('embeddedTemplateDir', dir);
  return async () => rmSync(dir, { recursive: true, force: true });
}
