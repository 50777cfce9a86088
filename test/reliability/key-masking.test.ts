import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { afterAll, describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { REDACTED } from '../../src/secrets.js';
import { compressBody, decompressBody } from '../../src/sync/kept-body.js';
import { runRebuild } from '../../src/sync/rebuild.js';
import { runCli } from '../helpers/cli.js';
import { BACKENDS } from '../helpers/db.js';
import { useResource, useSimulator, useWarehouse } from '../helpers/fixture.js';
import { startShapeProxy } from '../helpers/shape-proxy.js';
import { syncOnce } from '../helpers/sync.js';

// A key with characters that take another form in a URL (`/`, `+`) and in JSON (`"`), and a
// non-ASCII one that PHP's json_encode would write as `\u00e9`.
const KEY = 'echo/key"wéth+chars-0123';
const JSON_FORM = JSON.stringify(KEY).slice(1, -1);
const SPELLED = [...KEY].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
/** Every form the key could be stored in: plain, URL-encoded, JSON-escaped, with `\/`, and spelled in `\u` escapes. */
const FORMS = [KEY, encodeURIComponent(KEY), JSON_FORM, JSON_FORM.replaceAll('/', '\\/'), SPELLED];
const holdsKey = (text: string) => FORMS.some((f) => text.includes(f));

/** Occurrences of the key the proxy has put into the bodies it sent. */
let injected = 0;

/**
 * An upstream that echoes the request's own key (read from the request URL) in every result row:
 * in a modelled text field (DriverName), and in unmodelled ones as a link (URL-encoded), written
 * with `\/` and spelled wholly in `\u` escapes. In the first race of each body, the first row also
 * holds U+0000 (a reject, kept with its payload) and the second has the key as its start
 * position (a field error, kept with its value).
 */
const echo = (path: string, body: { Classes?: Array<{ Races?: Array<{ Results?: Array<Record<string, unknown>> }> }> }, url: URL) => {
  if (path !== '/v2/schedules/results/') return undefined;
  const key = url.searchParams.get('key') ?? '';
  let first = true;
  for (const k of body.Classes ?? [])
    for (const r of k.Races ?? []) {
      const rows = r.Results ?? [];
      for (const row of rows) {
        row.DriverName = `${String(row.DriverName)} ${key}`;
        row.Link = `https://example.invalid/results?key=${encodeURIComponent(key)}`;
        row.Slashed = '@@SLASHED@@';
        row.Spelled = '@@SPELLED@@';
        injected += 4;
      }
      if (first && rows.length >= 2) {
        rows[0]!.Nul = '\u0000';
        rows[1]!.ResultStart = key;
        injected += 1;
        first = false;
      }
    }
  return body;
};
const spell = (_path: string, json: string) => json.replaceAll('@@SLASHED@@', JSON_FORM.replaceAll('/', '\\/')).replaceAll('@@SPELLED@@', SPELLED);

const dir = mkdtempSync(join(tmpdir(), 'pitwall-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every text, JSON and array column of mrp.* and pitwall.* that holds any form of the key. */
async function columnsHoldingKey(pool: pg.Pool): Promise<string[]> {
  const { rows: columns } = await pool.query<{ schema: string; table: string; column: string }>(
    `SELECT c.table_schema AS schema, c.table_name AS table, c.column_name AS column
       FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
      WHERE c.table_schema IN ('mrp', 'pitwall') AND c.data_type IN ('text', 'jsonb', 'json', 'character varying', 'ARRAY')`,
  );
  expect(columns.length).toBeGreaterThan(20);
  const found: string[] = [];
  for (const c of columns) {
    const hits = await pool.query(
      `SELECT 1 FROM "${c.schema}"."${c.table}" WHERE ${FORMS.map((_f, i) => `position($${i + 1} in "${c.column}"::text) > 0`).join(' OR ')} LIMIT 1`,
      FORMS,
    );
    if (hits.rowCount) found.push(`${c.schema}.${c.table}.${c.column}`);
  }
  return found;
}

/**
 * What `pg_dump --data-only` would write, read through the protocol (a client binary of another
 * major version than the suite's server refuses to dump it): every row of every ordinary table of
 * every schema, as COPY's text format. COPY doubles a backslash, so the JSON-escaped forms of the
 * key are looked for in the text with its escapes undone too.
 */
async function dumpEveryTable(pool: pg.Pool): Promise<string> {
  const { rows: tables } = await pool.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
      ORDER BY 1`,
  );
  expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['mrp.results', 'pitwall.responses', 'pitwall.rejects']));
  const chunks: Buffer[] = [];
  const client = await pool.connect();
  try {
    for (const { name } of tables) {
      const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (chunks.push(chunk), done()) });
      await pipeline(client.query(copyTo(`COPY ${name} TO STDOUT`)), sink);
    }
  } finally {
    client.release();
  }
  return Buffer.concat(chunks).toString('utf8');
}
const COPY_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
const unescapeCopy = (text: string) => text.replace(/\\(.)/gs, (_m, ch: string) => COPY_ESCAPES[ch] ?? ch);

/** The kept bodies, decompressed. */
async function keptBodies(pool: pg.Pool): Promise<string[]> {
  const kept = await pool.query<{ body: Buffer; encoding: string }>('SELECT body, encoding FROM pitwall.responses');
  expect(kept.rowCount).toBeGreaterThan(0);
  return Promise.all(kept.rows.map((k) => decompressBody(k.body, k.encoding)));
}

describe.each(BACKENDS)('an upstream that echoes the API key in its data (%s)', (backend) => {
  const { db, sim } = useWarehouse(backend, { scale: 'tiny', seed: 41, key: KEY });
  const proxy = useResource('echoing proxy', () => startShapeProxy(sim.url, echo, spell), (p) => p.close());

  it('stores it masked everywhere, counts what was masked, and a rebuild cleans an older warehouse', async () => {
    injected = 0;
    const summary = await syncOnce(db, { ...sim, url: proxy.url } as typeof sim);
    expect(summary.status).toBe('succeeded');
    expect(injected).toBeGreaterThan(0);
    expect(summary.maskedValues).toBe(injected);
    const stored = await db.pool.query<{ summary: { maskedValues: number } }>('SELECT summary FROM pitwall.sync_runs WHERE run_id = $1', [summary.runId]);
    expect(stored.rows[0]!.summary.maskedValues).toBe(injected);

    // Masked in the typed column, in `raw`, in a field error's value and in a reject's payload.
    const results = await db.pool.query<{ n: string; masked: string }>(
      `SELECT count(*) AS n, count(*) FILTER (WHERE driver_name LIKE '%' || $1 AND raw->>'Spelled' = $1 AND raw->>'Link' LIKE '%?key=' || $1) AS masked FROM mrp.results`,
      [REDACTED],
    );
    expect(Number(results.rows[0]!.n)).toBeGreaterThan(0);
    expect(results.rows[0]!.masked).toBe(results.rows[0]!.n);
    const errors = await db.pool.query<{ value: string }>(`SELECT value::text AS value FROM pitwall.field_errors WHERE value::text LIKE '%' || $1 || '%'`, [REDACTED]);
    expect(errors.rowCount).toBeGreaterThan(0);
    const rejects = await db.pool.query(`SELECT 1 FROM pitwall.rejects WHERE payload::text LIKE '%' || $1 || '%'`, [REDACTED]);
    expect(rejects.rowCount).toBeGreaterThan(0);

    const dump = await dumpEveryTable(db.pool);
    expect(dump).toContain(REDACTED);
    expect(holdsKey(dump)).toBe(false);
    expect(holdsKey(unescapeCopy(dump))).toBe(false);
    expect(await columnsHoldingKey(db.pool)).toEqual([]);
    for (const body of await keptBodies(db.pool)) expect(holdsKey(body)).toBe(false);

    // The same bodies again: the masked body's digest was recorded, so nothing is loaded anew.
    injected = 0;
    const again = await syncOnce(db, { ...sim, url: proxy.url } as typeof sim);
    expect(again.status).toBe('succeeded');
    expect(again.scopes.loaded).toBe(0);
    expect(again.maskedValues).toBe(injected);

    // A warehouse kept by a pitwall that did not mask: the key back in every kept body.
    const kept = await db.pool.query<{ response_id: string; body: Buffer; encoding: string }>('SELECT response_id, body, encoding FROM pitwall.responses');
    let restored = 0;
    for (const k of kept.rows) {
      const text = await decompressBody(k.body, k.encoding);
      if (!text.includes(REDACTED)) continue;
      restored += text.split(REDACTED).length - 1;
      const old = await compressBody(text.replaceAll(REDACTED, JSON_FORM));
      await db.pool.query('UPDATE pitwall.responses SET body = $2, body_bytes = $3 WHERE response_id = $1', [k.response_id, old.body, old.bytes]);
    }
    expect(restored).toBeGreaterThan(0);
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (line: string) => void lines.push(line) }, secrets: [KEY] });
    const rebuilt = await runRebuild({ pool: db.pool, config: loadConfig({ DATABASE_URL: db.url, MRP_API_KEY: KEY }), logger });
    expect(rebuilt.status).toBe('succeeded');
    expect(rebuilt.maskedValues).toBe(restored);
    expect(await columnsHoldingKey(db.pool)).toEqual([]);
    for (const body of await keptBodies(db.pool)) expect(holdsKey(body)).toBe(false);
    const told = lines.filter((l) => l.includes('held the API key'));
    expect(told).toHaveLength(1);
    expect(JSON.parse(told[0]!)).toMatchObject({ maskedValues: restored });
    expect(holdsKey(lines.join('\n'))).toBe(false);
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
    expect(readFileSync(join(out, 'results.json'), 'utf8')).toContain(REDACTED);
    for (const f of files) expect(holdsKey(readFileSync(join(out, f), 'utf8'))).toBe(false);
    expect(holdsKey(r.stdout + r.stderr)).toBe(false);
  });
});
