import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { benchTable, LATEST_RESULTS, PERFORMANCE_DOC, readLatestResults, renderPerformanceDoc } from '../../bench/lib/performance-doc.js';

describe('docs/performance.md', () => {
  const results = readLatestResults();

  it('holds the table of the committed bench/results/latest.json (regenerate: node bin/run-ts.js bench/performance-doc.ts)', () => {
    const doc = readFileSync(PERFORMANCE_DOC, 'utf8');
    expect(doc).toBe(renderPerformanceDoc(doc, results));
  });

  it('shows every target the run judged, with its verdict', () => {
    const table = benchTable(results);
    const judged = Object.values(results.targets).filter((t) => t.met !== null);
    expect(judged.length, `${LATEST_RESULTS} judges no target`).toBeGreaterThan(0);
    for (const t of judged) expect(table).toContain(`| ${t.target.replaceAll('|', '\\|')} | ${t.met ? 'yes' : 'NO'} |`);
  });
});
