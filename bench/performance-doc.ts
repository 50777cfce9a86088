/**
 * `node bin/run-ts.js bench/performance-doc.ts`: writes the table of docs/performance.md from
 * bench/results/latest.json (`npm run bench` does it after every full run). test/bench/performance-doc.test.ts
 * fails when the committed page differs from what the committed results render.
 */
import { readFileSync, writeFileSync } from 'node:fs';

import { PERFORMANCE_DOC, readLatestResults, renderPerformanceDoc } from './lib/performance-doc.js';

const before = readFileSync(PERFORMANCE_DOC, 'utf8');
const after = renderPerformanceDoc(before, readLatestResults());
writeFileSync(PERFORMANCE_DOC, after);
process.stdout.write(`${PERFORMANCE_DOC}: ${before === after ? 'up to date' : 'updated'}\n`);
