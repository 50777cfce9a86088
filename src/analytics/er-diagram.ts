import { is } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';

import * as analyticsSchema from '../db/schema/analytics.js';
import { BOOKKEEPING_COLUMNS } from '../db/schema/columns.js';
import * as mrpSchema from '../db/schema/mrp.js';
import * as pitwallSchema from '../db/schema/pitwall.js';

import { RELATIONSHIPS, constraintName, holdsWhen, keyPairs, qualifiedTable, type Relationship } from './relationships.js';

interface DiagramTable {
  schema: string;
  name: string;
  columns: Array<{ name: string; type: string; primary: boolean }>;
}

/** Every table the Drizzle schema modules declare (what drizzle-kit migrates), by schema, then name. */
function schemaTables(): DiagramTable[] {
  const modules: Array<Record<string, unknown>> = [mrpSchema, pitwallSchema, analyticsSchema];
  return modules.flatMap((module) =>
    Object.values(module)
      .filter((value): value is PgTable => is(value, PgTable))
      .map((table) => {
        const config = getTableConfig(table);
        const composite = new Set(config.primaryKeys[0]?.columns.map((c) => c.name) ?? []);
        return {
          schema: config.schema ?? 'public',
          name: config.name,
          columns: config.columns.map((c) => ({ name: c.name, type: c.getSQLType(), primary: c.primary || composite.has(c.name) })),
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name)),
  );
}

// Mermaid attribute types are single words.
const mermaidType = (sqlType: string) => sqlType.replace(' with time zone', 'tz').replace(/\W+/g, '_');

function check(tables: Map<string, DiagramTable>, r: Relationship): void {
  for (const [side, column] of r.on.flatMap(([c, p]) => [[r.child, c], [r.parent, p]] as const)) {
    const table = tables.get(side);
    if (!table) throw new Error(`relationship ${r.parent} -> ${r.child}: no table ${side} in the schema`);
    if (!table.columns.some((c) => c.name === column)) throw new Error(`relationship ${r.parent} -> ${r.child}: ${side} has no column ${column}`);
  }
}

/**
 * The warehouse as a Mermaid ER diagram, drawn from the Drizzle schema (tables, columns, types,
 * primary keys) and RELATIONSHIPS (the joins). The bookkeeping columns every mrp table carries
 * are left out so the diagram shows what tells the tables apart. docs/warehouse.md holds the
 * output; test/analytics/docs.test.ts fails when the two differ.
 */
export function erDiagram(): string {
  const tables = schemaTables();
  const byName = new Map<string, DiagramTable>();
  for (const t of tables) {
    if (byName.has(t.name)) throw new Error(`table name ${t.name} appears in two schemas; the diagram names tables without schema`);
    byName.set(t.name, t);
  }
  for (const r of RELATIONSHIPS) check(byName, r);
  const foreign = new Set(RELATIONSHIPS.flatMap((r) => r.on.map(([c]) => `${r.child}.${c}`)));
  const bookkeeping: ReadonlySet<string> = new Set(BOOKKEEPING_COLUMNS);

  const lines = ['erDiagram'];
  let schema = '';
  for (const t of tables) {
    if (t.schema !== schema) {
      schema = t.schema;
      lines.push(`  %% schema ${schema}`);
    }
    lines.push(`  ${t.name} {`);
    for (const c of t.columns) {
      if (t.schema === 'mrp' && bookkeeping.has(c.name)) continue;
      const keys = [c.primary ? 'PK' : '', foreign.has(`${t.name}.${c.name}`) ? 'FK' : ''].filter(Boolean).join(', ');
      lines.push(`    ${mermaidType(c.type)} ${c.name}${keys ? ` ${keys}` : ''}`);
    }
    lines.push('  }');
  }
  for (const r of RELATIONSHIPS) {
    lines.push(`  ${r.parent} ||--o{ ${r.child} : "${r.on.map(([c, p]) => (c === p ? c : `${c} = ${p}`)).join(', ')}"`);
  }
  return lines.join('\n');
}

/**
 * Every join of the diagram as a table: its columns, its foreign key (enforced, or NOT ENFORCED
 * on PostgreSQL 18 and later) and when it holds (docs/warehouse.md, generated; the relationships
 * test checks the database has exactly these keys).
 */
export function joinsTable(): string {
  const lines = ['| Child | Parent | Columns | Foreign key | Holds |', '|---|---|---|---|---|'];
  for (const r of RELATIONSHIPS) {
    const columns = keyPairs(r).map(([c, p]) => (c === p ? `\`${c}\`` : `\`${c}\` = \`${p}\``)).join(', ');
    const key = `\`${constraintName(r)}\`: ${r.enforced === true ? 'enforced' : 'not enforced, on PostgreSQL 18 and later (none before)'}`;
    lines.push(`| \`${qualifiedTable(r.child)}\` | \`${qualifiedTable(r.parent)}\` | ${columns} | ${key} | ${holdsWhen(r)} |`);
  }
  return lines.join('\n');
}
