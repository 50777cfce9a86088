import { readFileSync } from 'node:fs';

import { beforeAll, describe, expect, it } from 'vitest';

import { CONFIG_VARIABLES } from '../src/config.js';

import { useWarehouse } from './helpers/fixture.js';
import { syncOnce } from './helpers/sync.js';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const CONFIGURATION = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
const WAREHOUSE_DOC = readFileSync(new URL('../docs/warehouse.md', import.meta.url), 'utf8');

function section(startMarker: string, endMarker?: string, doc = README): string {
  const start = doc.indexOf(startMarker);
  if (start === -1) throw new Error(`the doc has no ${startMarker}`);
  const end = endMarker ? doc.indexOf(endMarker, start) : doc.indexOf('\n## ', start);
  return doc.slice(start, end === -1 ? undefined : end);
}

describe('the README', () => {
  it('is a page a newcomer reads in five minutes: at most 10 KB, linking the configuration page', () => {
    expect(Buffer.byteLength(README)).toBeLessThanOrEqual(10 * 1024);
    expect(README).toContain('(docs/configuration.md)');
  });
});

describe('docs/configuration.md', () => {
  it('documents every configuration variable with its flag and default', () => {
    const table = section('<!-- configuration:start', '<!-- configuration:end', CONFIGURATION);
    const rows = new Map(
      table
        .split('\n')
        .filter((l) => l.startsWith('| `'))
        .map((l) => l.split('|').map((c) => c.trim()))
        .map((cells) => [cells[1]!.replaceAll('`', ''), cells]),
    );
    for (const v of CONFIG_VARIABLES) {
      const row = rows.get(v.env);
      expect(row, v.env).toBeDefined();
      if (v.flag) expect(row![2], v.env).toBe(`\`${v.flag}\``);
      if (v.default !== undefined) expect(row![3], v.env).toBe(`\`${v.default}\``);
    }
    expect(rows.size).toBe(CONFIG_VARIABLES.length);
  });
});

describe('the test command', () => {
  it('is the one the README shows and CI runs', () => {
    expect(README).toContain('npm test');
    expect(readFileSync(new URL('../.ci/run', import.meta.url), 'utf8')).toContain('npm test');
  });
});

describe('the example queries in docs/warehouse.md', () => {
  const queries = [...section('<!-- example-queries', undefined, WAREHOUSE_DOC).matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const { db, sim } = useWarehouse('postgres', { scale: 'small', seed: 2 });
  beforeAll(async () => {
    expect((await syncOnce(db, sim)).status).toBe('succeeded');
  });

  it('are at least three', () => expect(queries.length).toBeGreaterThanOrEqual(3));

  it.each(queries.map((q, i) => [i + 1, q] as const))('query %i runs and answers with rows', async (_n, sql) => {
    const { rows } = await db.pool.query(sql);
    expect(rows.length).toBeGreaterThan(0);
  });
});
