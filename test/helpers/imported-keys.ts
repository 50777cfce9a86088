import type pg from 'pg';

import { RELATIONSHIPS, constraintName, declaredAs, keyPairs, qualifiedTable } from '../../src/analytics/relationships.js';

/**
 * What a BI tool sees of the warehouse's foreign keys through JDBC: the query pgjdbc's
 * DatabaseMetaData.getImportedKeys runs (PgDatabaseMetaData.getImportedExportedKeys, as in
 * Debian's libpostgresql-jdbc-java 42.5.5, which .ci/run drives itself through test/jdbc), and the
 * rows relationships.ts says it must give. Per pgjdbc, for a server of 11 or later: the key's
 * columns paired by position up to max_index_keys, its supporting index on the parent
 * (conindid) as PK_NAME. pgjdbc inlines the schema and table as quoted literals; here they are
 * parameters, the same text.
 */
const importedKeysSql = (maxIndexKeys: number) =>
  `SELECT NULL::text AS PKTABLE_CAT, pkn.nspname AS PKTABLE_SCHEM, pkc.relname AS PKTABLE_NAME, pka.attname AS PKCOLUMN_NAME, ` +
  `NULL::text AS FKTABLE_CAT, fkn.nspname AS FKTABLE_SCHEM, fkc.relname AS FKTABLE_NAME, fka.attname AS FKCOLUMN_NAME, ` +
  `pos.n AS KEY_SEQ, ` +
  `CASE con.confupdtype  WHEN 'c' THEN 0 WHEN 'n' THEN 2 WHEN 'd' THEN 4 WHEN 'r' THEN 1 WHEN 'p' THEN 1 WHEN 'a' THEN 3 ELSE NULL END AS UPDATE_RULE, ` +
  `CASE con.confdeltype  WHEN 'c' THEN 0 WHEN 'n' THEN 2 WHEN 'd' THEN 4 WHEN 'r' THEN 1 WHEN 'p' THEN 1 WHEN 'a' THEN 3 ELSE NULL END AS DELETE_RULE, ` +
  `con.conname AS FK_NAME, pkic.relname AS PK_NAME, ` +
  `CASE  WHEN con.condeferrable AND con.condeferred THEN 5 WHEN con.condeferrable THEN 6 ELSE 7 END AS DEFERRABILITY ` +
  ` FROM  pg_catalog.pg_namespace pkn, pg_catalog.pg_class pkc, pg_catalog.pg_attribute pka, ` +
  ` pg_catalog.pg_namespace fkn, pg_catalog.pg_class fkc, pg_catalog.pg_attribute fka, ` +
  ` pg_catalog.pg_constraint con, ` +
  ` pg_catalog.generate_series(1, ${maxIndexKeys}) pos(n), ` +
  ` pg_catalog.pg_class pkic` +
  ` WHERE pkn.oid = pkc.relnamespace AND pkc.oid = pka.attrelid AND pka.attnum = con.confkey[pos.n] AND con.confrelid = pkc.oid ` +
  ` AND fkn.oid = fkc.relnamespace AND fkc.oid = fka.attrelid AND fka.attnum = con.conkey[pos.n] AND con.conrelid = fkc.oid ` +
  ` AND con.contype = 'f' ` +
  `AND (pkic.relkind = 'i' OR pkic.relkind = 'I')` +
  ` AND pkic.oid = con.conindid ` +
  ` AND fkn.nspname = $1 AND fkc.relname = $2` +
  ` ORDER BY pkn.nspname,pkc.relname, con.conname,pos.n`;

/** One row of getImportedKeys, the columns that say which join it is (JDBC's names, lower-cased as PostgreSQL returns them). */
export interface ImportedKey {
  pktable_schem: string;
  pktable_name: string;
  pkcolumn_name: string;
  fktable_schem: string;
  fktable_name: string;
  fkcolumn_name: string;
  key_seq: number;
  fk_name: string;
  /** 5: initially deferred (the enforced keys); 7: not deferrable (NOT ENFORCED ones: nothing to defer). */
  deferrability: number;
}

export interface ImportedKeyRow extends ImportedKey {
  pktable_cat: null;
  fktable_cat: null;
  update_rule: number;
  delete_rule: number;
  pk_name: string;
}

/** The columns of a row that say which join it is. */
export const joinOf = ({ pktable_cat: _pkCat, fktable_cat: _fkCat, update_rule: _update, delete_rule: _delete, pk_name: _pk, ...key }: ImportedKeyRow): ImportedKey => key;

/** getImportedKeys(null, schema, table), as pgjdbc asks it. */
export async function jdbcImportedKeys(pool: pg.Pool, schema: string, table: string): Promise<ImportedKeyRow[]> {
  const { rows: setting } = await pool.query<{ setting: string }>(`SELECT setting FROM pg_catalog.pg_settings WHERE name='max_index_keys'`);
  const { rows } = await pool.query<ImportedKeyRow>(importedKeysSql(Number(setting[0]!.setting)), [schema, table]);
  return rows;
}

/** Every warehouse table, as getTables lists it for the three schemas. */
export async function warehouseTables(pool: pg.Pool): Promise<Array<{ schema: string; table: string }>> {
  const { rows } = await pool.query<{ schema: string; table: string }>(
    `SELECT n.nspname AS schema, c.relname AS table FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
      WHERE n.nspname IN ('mrp', 'pitwall', 'analytics') AND c.relkind IN ('r', 'p') ORDER BY 1, 2`,
  );
  return rows;
}

/**
 * The getImportedKeys rows every join declared on a server of `serverVersionNum` gives (of all
 * tables together), in byJoin order.
 */
export function expectedImportedKeys(serverVersionNum: number): ImportedKey[] {
  const split = (table: string) => qualifiedTable(table).split('.') as [string, string];
  return RELATIONSHIPS.filter((r) => declaredAs(r, serverVersionNum) !== 'none')
    .flatMap((r) => {
      const [pkSchema, pkTable] = split(r.parent);
      const [fkSchema, fkTable] = split(r.child);
      return keyPairs(r).map(([c, p], i) => ({
        pktable_schem: pkSchema,
        pktable_name: pkTable,
        pkcolumn_name: p,
        fktable_schem: fkSchema,
        fktable_name: fkTable,
        fkcolumn_name: c,
        key_seq: i + 1,
        fk_name: constraintName(r),
        deferrability: r.enforced === true ? 5 : 7,
      }));
    })
    .sort(byJoin);
}

/** One order for rows from anywhere: by child table, key name and column position. */
export const byJoin = (a: ImportedKey, b: ImportedKey): number => order(a).localeCompare(order(b));

const order = (k: ImportedKey) => `${k.fktable_schem}.${k.fktable_name} ${k.fk_name} ${String(k.key_seq).padStart(2, '0')}`;
