import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { replaceGeneratedSection } from '../../src/analytics/analytics-doc.js';

import { ROOT } from './child.js';
import { reportRows, runHeading, type BenchResults } from './report.js';

export const PERFORMANCE_DOC = join(ROOT, 'docs/performance.md');
export const LATEST_RESULTS = join(ROOT, 'bench/results/latest.json');
const SECTION = 'bench-table';

const cell = (text: string) => text.replaceAll('|', '\\|');

/** The run's figures as a Markdown table: the plain-text report's rows, a detail row marked `↳`. */
export function benchTable(r: BenchResults): string {
  const rows = reportRows(r).map(([measure, value, target, met]) => {
    const detail = /^ +/.test(measure) ? '↳ ' : '';
    return `| ${cell(detail + measure.trim())} | ${cell(value)} | ${cell(target)} | ${met} |`;
  });
  return [runHeading(r), '', '| Measure | Result | Target | Met |', '|---|--:|---|---|', ...rows].join('\n');
}

/** docs/performance.md (given as `doc`) with its table rendered from `results`. */
export function renderPerformanceDoc(doc: string, results: BenchResults): string {
  return replaceGeneratedSection(doc, SECTION, benchTable(results));
}

export function readLatestResults(path = LATEST_RESULTS): BenchResults {
  return JSON.parse(readFileSync(path, 'utf8')) as BenchResults;
}
