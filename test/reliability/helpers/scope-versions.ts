import { isDeepStrictEqual } from 'node:util';

import type pg from 'pg';

import { parseBody } from '../../../src/api/body.js';
import { tableMeta } from '../../../src/db/load/table-meta.js';
import { warehouseTables } from '../../../src/db/schema/mrp.js';
import type { RunningSimulator } from '../../../src/simulator/server.js';
import { ENDPOINTS, type Endpoint } from '../../../src/sync/endpoints.js';
import type { Row, Scope } from '../../../src/sync/extract/types.js';
import { scopeHash, textDigest } from '../../../src/sync/hash.js';
import { scopeKey } from '../../../src/sync/sql/sync-state.js';

/**
 * "Never a half-written scope", checked from the outside. Every scope pitwall records as loaded
 * carries the hash of the response it loaded; that response must be one the upstream really
 * served (one of the versions captured here), and the scope's live rows must be exactly what
 * that response yields: no row of another version, none missing, none extra.
 */

export interface ScopeVersion {
  hash: string;
  body: Record<string, unknown>;
}

export type Versions = Map<string, ScopeVersion[]>;

const byName = new Map(ENDPOINTS.map((e) => [e.name as string, e]));

/** Adds the current response of every scope pitwall knows to `versions`. Faults must be off. */
export async function captureVersions(pool: pg.Pool, sim: RunningSimulator, versions: Versions = new Map()): Promise<Versions> {
  const { rows } = await pool.query<{ endpoint: string; params: string }>('SELECT endpoint, params FROM pitwall.sync_state');
  for (const { endpoint, params } of rows) {
    const ep = byName.get(endpoint)!;
    const text = await (await fetch(`${sim.url}${ep.path}?${params ? `${params}&` : ''}key=${sim.key}`)).text();
    const body = parseBody(text).value as Record<string, unknown>;
    const key = scopeKey(endpoint, params);
    const list = versions.get(key) ?? [];
    const hash = scopeHash(textDigest(Buffer.from(text)), body);
    if (!list.some((v) => v.hash === hash)) list.push({ hash, body });
    versions.set(key, list);
  }
  return versions;
}

const inScope = (row: Row, scope: Scope) => Object.entries(scope.where).every(([col, values]) => values.includes(Number(row[col])));

async function scopeProblem(pool: pg.Pool, scope: Scope, expected: Row[]): Promise<string | null> {
  const meta = tableMeta(warehouseTables[scope.table]);
  const cols = Object.keys(scope.where);
  const where = ['_deleted_at IS NULL', ...cols.map((c, i) => `"${c}" = ANY($${i + 1}::int[])`)].join(' AND ');
  const { rows } = await pool.query(`SELECT ${meta.keyColumns.map((k) => `"${k}"`).join(', ')}, raw FROM ${meta.qualifiedName} WHERE ${where}`, cols.map((c) => scope.where[c]));
  const keyOf = (r: Record<string, unknown>) => JSON.stringify(meta.keyColumns.map((k) => Number(r[k])));
  const want = new Map(expected.filter((r) => inScope(r, scope)).map((r) => [keyOf(r), JSON.parse(JSON.stringify(r.raw)) as unknown]));
  const got = new Map(rows.map((r: Record<string, unknown>) => [keyOf(r), r.raw]));
  for (const [k, raw] of want) {
    if (!got.has(k)) return `${scope.table} ${JSON.stringify(scope.where)}: row ${k} missing`;
    if (!isDeepStrictEqual(got.get(k), raw)) return `${scope.table} ${JSON.stringify(scope.where)}: row ${k} is from another version`;
  }
  for (const k of got.keys()) if (!want.has(k)) return `${scope.table} ${JSON.stringify(scope.where)}: row ${k} should not be live`;
  return null;
}

/** Every scope recorded as loaded whose rows are not exactly those of the response it records. */
export async function halfWrittenScopes(pool: pg.Pool, versions: Versions): Promise<string[]> {
  const { rows } = await pool.query<{ endpoint: string; params: string; response_hash: string }>(
    `SELECT endpoint, params, response_hash FROM pitwall.sync_state WHERE status = 'ok' AND response_hash IS NOT NULL`,
  );
  const problems: string[] = [];
  for (const s of rows) {
    const key = scopeKey(s.endpoint, s.params);
    const version = versions.get(key)?.find((v) => v.hash === s.response_hash);
    if (!version) {
      problems.push(`${key}: its hash matches no response the upstream served`);
      continue;
    }
    const ep = byName.get(s.endpoint) as Endpoint;
    const params = Object.fromEntries(new URLSearchParams(s.params));
    const items = version.body[ep.arrayKey] as unknown[];
    const extracted = ep.extract(items, params, version.body);
    for (const scope of extracted.scopes) {
      const problem = await scopeProblem(pool, scope, extracted.rows[scope.table] ?? []);
      if (problem) problems.push(`${key}: ${problem}`);
    }
  }
  return problems;
}
