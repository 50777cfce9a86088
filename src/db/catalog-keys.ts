import type pg from 'pg';

import { NOT_ENFORCED_SINCE, RELATIONSHIPS, constraintName, declaredAs, holdsWhen, keyPairs, qualifiedTable, type Relationship } from '../analytics/relationships.js';
import type { Logger } from '../log.js';

/**
 * The joins of src/analytics/relationships.ts that no migration enforces, declared as foreign keys
 * NOT ENFORCED (PostgreSQL 18 and later): in the catalog, where JDBC's getImportedKeys and
 * information_schema show them to BI tools, with no trigger and no check on write. Which exist
 * depends on the server's version, which can change under a migrated warehouse (an upgrade from
 * 17), so they are reconciled after migrations every time, not declared once by one: missing keys
 * added, changed ones declared anew, comments set, and pitwall's NOT ENFORCED keys that the list no
 * longer has dropped. A key is pitwall's by its name (`<child>_<parent>_fk`, constraintName);
 * others, and every enforced key, are left alone. When nothing differs this is one catalog query.
 */

/** What one reconciliation did, by constraint name. */
export interface CatalogKeysResult {
  serverVersionNum: number;
  added: string[];
  commented: string[];
  dropped: string[];
  /** Keys it could not change (a lock not granted in time, a role that does not own the tables); the next run tries again. */
  failed: Array<{ name: string; code: string | undefined; message: string }>;
}

interface CatalogKey {
  name: string;
  child: string;
  parent: string;
  columns: string[];
  refs: string[];
  enforced: boolean;
  comment: string | null;
  /** Named as pitwall names its keys, after the two tables it joins. */
  pitwallNamed: boolean;
}

/** Each key's change waits this long for its two tables' locks, then gives up until the next run rather than stall a start. */
const LOCK_TIMEOUT = '5s';

const SCHEMAS = ['mrp', 'pitwall', 'analytics'];

// `conenforced` is new in 18: this query runs on 18 and later only.
const FOREIGN_KEYS = `
  SELECT c.conname AS name, cn.nspname || '.' || cc.relname AS child, pn.nspname || '.' || pc.relname AS parent,
         ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k(n, i) JOIN pg_attribute AS a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i) AS columns,
         ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY AS k(n, i) JOIN pg_attribute AS a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i) AS refs,
         c.conenforced AS enforced, obj_description(c.oid, 'pg_constraint') AS comment,
         c.conname = cc.relname || '_' || pc.relname || '_fk' AS "pitwallNamed"
    FROM pg_constraint AS c
    JOIN pg_class AS cc ON cc.oid = c.conrelid JOIN pg_namespace AS cn ON cn.oid = cc.relnamespace
    JOIN pg_class AS pc ON pc.oid = c.confrelid JOIN pg_namespace AS pn ON pn.oid = pc.relnamespace
   WHERE c.contype = 'f' AND cn.nspname = ANY($1)`;

export async function serverVersionNum(client: pg.ClientBase | pg.Pool): Promise<number> {
  const { rows } = await client.query<{ v: number }>(`SELECT current_setting('server_version_num')::int AS v`);
  return rows[0]!.v;
}

/** The joins declared NOT ENFORCED on a server that can: every join no migration enforces. */
const notEnforced = (): Relationship[] => RELATIONSHIPS.filter((r) => declaredAs(r, NOT_ENFORCED_SINCE) === 'not enforced');

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Brings pitwall's NOT ENFORCED keys in line with RELATIONSHIPS; nothing on a server before 18. */
export async function reconcileCatalogKeys(client: pg.ClientBase): Promise<CatalogKeysResult> {
  const result: CatalogKeysResult = { serverVersionNum: await serverVersionNum(client), added: [], commented: [], dropped: [], failed: [] };
  if (result.serverVersionNum < NOT_ENFORCED_SINCE) return result;
  const { rows: existing } = await client.query<CatalogKey>(FOREIGN_KEYS, [SCHEMAS]);
  const found = new Map(existing.map((k) => [`${k.child} ${k.name}`, k]));
  const wanted = notEnforced();
  const wantedKeys = new Set(wanted.map((r) => `${qualifiedTable(r.child)} ${constraintName(r)}`));

  for (const k of existing) {
    if (k.enforced || !k.pitwallNamed || wantedKeys.has(`${k.child} ${k.name}`)) continue;
    if (await change(client, result, k.name, [`ALTER TABLE ${k.child} DROP CONSTRAINT ${k.name}`])) result.dropped.push(k.name);
  }
  for (const r of wanted) {
    const name = constraintName(r);
    const child = qualifiedTable(r.child);
    const k = found.get(`${child} ${name}`);
    // An enforced key of that name, made by hand, holds the join and more: left as it is.
    if (k?.enforced) continue;
    const pairs = keyPairs(r);
    const columns = pairs.map(([c]) => c);
    const refs = pairs.map(([, p]) => p);
    const current = k !== undefined && k.parent === qualifiedTable(r.parent) && sameList(k.columns, columns) && sameList(k.refs, refs);
    const comment = holdsWhen(r);
    if (current && k.comment === comment) continue;
    const statements = [];
    if (k && !current) statements.push(`ALTER TABLE ${child} DROP CONSTRAINT ${name}`);
    if (!current) {
      statements.push(`ALTER TABLE ${child} ADD CONSTRAINT ${name} FOREIGN KEY (${columns.join(', ')}) REFERENCES ${qualifiedTable(r.parent)} (${refs.join(', ')}) NOT ENFORCED`);
    }
    statements.push(`COMMENT ON CONSTRAINT ${name} ON ${child} IS ${client.escapeLiteral(comment)}`);
    if (await change(client, result, name, statements)) (current ? result.commented : result.added).push(name);
  }
  return result;
}

/**
 * Drops every NOT ENFORCED key of pitwall's, before pending migrations: a key depends on its
 * parent's primary key, which a migration may rebuild (as 0019 did), and a migration cannot know
 * which of them the server has. Reconciling after the migrations declares them again.
 */
export async function dropCatalogKeys(client: pg.ClientBase): Promise<string[]> {
  if ((await serverVersionNum(client)) < NOT_ENFORCED_SINCE) return [];
  const { rows } = await client.query<CatalogKey>(FOREIGN_KEYS, [SCHEMAS]);
  const ours = rows.filter((k) => !k.enforced && k.pitwallNamed);
  if (ours.length > 0) await client.query(ours.map((k) => `ALTER TABLE ${k.child} DROP CONSTRAINT ${k.name}`).join(';\n'));
  return ours.map((k) => k.name);
}

/** One key's statements in a transaction of their own, so a lock not granted costs that key only until the next run. */
async function change(client: pg.ClientBase, result: CatalogKeysResult, name: string, statements: string[]): Promise<boolean> {
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
    for (const sql of statements) await client.query(sql);
    await client.query('COMMIT');
    return true;
  } catch (err) {
    await client.query('ROLLBACK');
    const e = err as { code?: string; message?: string };
    result.failed.push({ name, code: e.code, message: e.message ?? String(err) });
    return false;
  }
}

/** What a reconciliation did, in the log: changes at info, keys it could not change at warn. */
export function logCatalogKeys(logger: Logger, result: CatalogKeysResult): void {
  const { added, commented, dropped, failed } = result;
  if (result.serverVersionNum < NOT_ENFORCED_SINCE) {
    const n = notEnforced().length;
    logger.info({ serverVersionNum: result.serverVersionNum }, `${n} joins have no foreign key on this server: PostgreSQL 18 declares them NOT ENFORCED for BI tools (docs/warehouse.md, "Foreign keys")`);
  }
  if (added.length + commented.length + dropped.length > 0) {
    // The counts say what changed; the names (20 on a first start) are for whoever looks closer.
    logger.info({ declared: added.length, commented: commented.length, dropped: dropped.length }, `foreign keys NOT ENFORCED (for BI tools): ${added.length} declared, ${commented.length} commented, ${dropped.length} dropped`);
    logger.debug({ added, commented, dropped }, 'foreign keys NOT ENFORCED, by name');
  }
  for (const f of failed) {
    logger.warn({ key: f.name, code: f.code }, `foreign key ${f.name} (NOT ENFORCED, for BI tools) left as it was: ${f.message}; the next pitwall migrate or worker start tries again`);
  }
}
