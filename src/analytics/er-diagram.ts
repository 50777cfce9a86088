import { is } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';

import * as analyticsSchema from '../db/schema/analytics.js';
import { BOOKKEEPING_COLUMNS } from '../db/schema/columns.js';
import * as mrpSchema from '../db/schema/mrp.js';
import * as pitwallSchema from '../db/schema/pitwall.js';

import { RELATIONSHIPS, type Relationship } from './relationships.js';

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
 * The warehouse as a Mermaid ER diagram, drawn from the Drizzle schema (tables, their key columns
 * and types) and RELATIONSHIPS (the joins). The bookkeeping columns every mrp table carries
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
      // Keys only: the other columns, with the wire field behind each, are listed beside the diagram.
      if (keys) lines.push(`    ${mermaidType(c.type)} ${c.name} ${keys}`);
    }
    lines.push('  }');
  }
  // An enforced key is drawn solid, a NOT ENFORCED one (or none, before PostgreSQL 18) dotted; a
  // join that holds only once the warehouse is complete says so in its label.
  for (const r of RELATIONSHIPS) {
    const line = r.enforced === true ? '||--o{' : '||..o{';
    const label = `${r.on.map(([c, p]) => (c === p ? c : `${c} = ${p}`)).join(', ')}${r.holds === 'complete' ? ' (once complete)' : ''}`;
    lines.push(`  ${r.parent} ${line} ${r.child} : "${label}"`);
  }
  return lines.join('\n');
}
