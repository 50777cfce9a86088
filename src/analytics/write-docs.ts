import { readFileSync, writeFileSync } from 'node:fs';

import { ANALYTICS_DOC_URL, renderAnalyticsDoc } from './analytics-doc.js';

// Entry script, not a module: `node bin/run-ts.js src/analytics/write-docs.ts` regenerates the
// ER diagram and the cookbook in README.md after a schema or recipe change.
const before = readFileSync(ANALYTICS_DOC_URL, 'utf8');
const after = renderAnalyticsDoc(before);
writeFileSync(ANALYTICS_DOC_URL, after);
process.stdout.write(before === after ? 'README.md is up to date\n' : 'README.md updated\n');
