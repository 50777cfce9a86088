import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { decompressBody } from '../../src/sync/kept-body.js';
import { runCli } from '../helpers/cli.js';
import { BACKENDS } from '../helpers/db.js';
import { useResource, useSimulator, useWarehouse } from '../helpers/fixture.js';
import { startShapeProxy } from '../helpers/shape-proxy.js';
import { syncOnce } from '../helpers/sync.js';

// A key with characters that take another form in a URL (`/`, `+`) and in JSON (`"`).
const KEY = 'echo/key"with+chars-0123';
const FORMS = [KEY, encodeURIComponent(KEY), JSON.stringify(KEY).slice(1, -1), KEY.replaceAll('/', '\\/')];
const ESCAPED = [...KEY].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/**
 * An upstream that echoes the request's key in every result row: in a modelled text field
 * (DriverName), and in unmodelled ones as a link, URL-encoded, JSON-escaped with `\/`, and
 * spelled wholly in `\u` escapes. Four masked occurrences per row, the escaped one counted at parse.
 */
const echo = (path: string, body: { Classes?: Array<{ Races?: Array<{ Results?: Array<Record<string, unknown>> }> }> }) => {
  if (path !== '/v2/schedules/results/') return undefined;
  for (const k of body.Classes ?? [])
    for (const r of k.Races ?? [])
      for (const row of r.Results ?? []) {
        row.DriverName = `${String(row.DriverName)} ${KEY}`;
        row.Link = `https://example.invalid/results?key=${encodeURIComponent(KEY)}`;
        row.Slashed = '@@SLASHED@@';
        row.Spelled = '@@SPELLED@@';
      }
  return body;
};
const spell = (_path: string, json: string) => json.replaceAll('@@SLASHED@@', JSON.stringify(KEY).slice(1, -1).replaceAll('/', '\\/')).replaceAll('@@SPELLED@@', ESCAPED);

const dir = mkdtempSync(join(tmpdir(), 'pitwall-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const holdsKey = (text: string) => FORMS.some((f) => text.includes(f)) || text.includes(ESCAPED);

describe.each(BACKENDS)('an upstream that echoes the API key in its data (%s)', (backend) => {
  const { db, sim } = useWarehouse(backend, { scale: 'tiny', seed: 41, key: KEY });
  const proxy = useResource('echoing proxy', () => startShapeProxy(sim.url, echo, spell), (p) => p.close());

  it('stores it masked everywhere, and the summary counts what was masked', async () => {
    const summary = await syncOnce(db, { ...sim, url: proxy.url } as typeof sim);
    expect(summary.status).toBe('succeeded');
    const { rows } = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM mrp.results');
    expect(Number(rows[0]!.n)).toBeGreaterThan(0);
    expect(summary.maskedValues).toBe(4 * Number(rows[0]!.n));
    const masked = await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM mrp.results WHERE driver_name LIKE '%[redacted]' AND raw->>'Spelled' = '[redacted]'`);
    expect(masked.rows[0]!.n).toBe(rows[0]!.n);

    if (backend === 'postgres') {
      const dump = execFileSync('pg_dump', ['--data-only', '--no-owner', db.url], { maxBuffer: 512 * 1024 * 1024 }).toString('utf8');
      expect(dump).toContain('[redacted]');
      expect(holdsKey(dump)).toBe(false);
    }
    // Every text and JSON column of every table, and every kept body decompressed.
    const { rows: columns } = await db.pool.query<{ schema: string; table: string; column: string }>(
      `SELECT table_schema AS schema, table_name AS table, column_name AS column FROM information_schema.columns
        WHERE table_schema IN ('mrp', 'pitwall') AND data_type IN ('text', 'jsonb', 'json', 'character varying', 'ARRAY')
          AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_schema IN ('mrp', 'pitwall') AND table_type = 'BASE TABLE')`,
    );
    expect(columns.length).toBeGreaterThan(20);
    for (const c of columns) {
      const found = await db.pool.query(`SELECT 1 FROM "${c.schema}"."${c.table}" WHERE position($1 in "${c.column}"::text) > 0 OR position($2 in "${c.column}"::text) > 0 LIMIT 1`, [KEY, encodeURIComponent(KEY)]);
      expect(found.rowCount, `${c.schema}.${c.table}.${c.column}`).toBe(0);
    }
    const kept = await db.pool.query<{ body: Buffer; encoding: string }>('SELECT body, encoding FROM pitwall.responses');
    expect(kept.rowCount).toBeGreaterThan(0);
    for (const k of kept.rows) expect(holdsKey(await decompressBody(k.body, k.encoding))).toBe(false);
  });

});

describe('probe --save against an upstream that echoes the API key', () => {
  const sim = useSimulator({ scale: 'tiny', seed: 42, key: KEY });
  const proxy = useResource('echoing proxy', () => startShapeProxy(sim.url, echo, spell), (p) => p.close());

  it('is masked in the files probe --save writes', async () => {
    const out = join(dir, 'probe');
    const r = await runCli(['probe', '--save', out], { MRP_API_BASE_URL: proxy.url, MRP_API_KEY: KEY, PITWALL_MAX_RPS: '0' });
    expect(r.code, r.stderr).toBe(0);
    const files = readdirSync(out);
    expect(files).toContain('results.json');
    for (const f of files) expect(holdsKey(readFileSync(join(out, f), 'utf8'))).toBe(false);
  });
});
