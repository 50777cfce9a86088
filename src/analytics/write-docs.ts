import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { GENERATED_DOCS, renderGeneratedSections } from './analytics-doc.js';

// Entry script, not a module: `node bin/run-ts.js src/analytics/write-docs.ts` regenerates the
// ER diagram (docs/warehouse.md), the cookbook (docs/cookbook.md), the settings
// (docs/configuration.md) and the exit codes (docs/commands.md) after a schema, recipe, setting
// or exit code change.
for (const { url, sections } of Object.values(GENERATED_DOCS)) {
  const before = readFileSync(url, 'utf8');
  const after = renderGeneratedSections(before, sections);
  writeFileSync(url, after);
  process.stdout.write(`${fileURLToPath(url)}: ${before === after ? 'up to date' : 'updated'}\n`);
}
