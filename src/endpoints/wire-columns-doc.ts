import type { z } from 'zod';

import { flag, id, optDecimal, optIndexedText, optInt, optText, optUsDateTime } from '../api/schemas/primitives.js';

import type { Field, Level } from './declare.js';
import { DRIVER_COLUMNS } from './driver.js';
import type { Endpoint } from './endpoint.js';
import { ENDPOINTS } from './registry.js';

/** What each field type accepts, as a reader of the docs would say it. */
const TYPE_NAMES = new Map<z.ZodType, string>([
  [id, 'id'],
  [optInt, 'integer'],
  [optDecimal, 'decimal'],
  [flag, 'flag'],
  [optText, 'text'],
  [optIndexedText, 'text (at most 500 characters)'],
  [optUsDateTime, 'US date-time'],
]);
/** The short type names above, said once at the top of the list. */
const TYPE_LEGEND =
  'An id is a number or numeric text; a flag is true/false, 1/0 or yes/no; a US date-time reads `5/11/2015 7:30 PM`.';

const typeName = (f: Field): string => TYPE_NAMES.get(f.type) ?? TYPE_NAMES.get((f.type as z.ZodOptional).unwrap?.() as z.ZodType) ?? 'value';

/** A level as one line: its path and table, then each wire field with the column it fills and its type. */
function lineOf(l: Level): string {
  const { spec } = l;
  const fields: string[] = [];
  // A column of the level's own table is named alone; one of another table with its table.
  const name = (c: string) => `\`${c.startsWith(`${l.table}.`) ? c.slice(l.table.length + 1) : c}\``;
  const add = (columns: string[], f: Field, key: boolean) =>
    fields.push(`\`${f.wire}\` → ${columns.length ? columns.map(name).join(' and ') : '(modelled, no column)'} (${key ? 'key, ' : ''}${typeName(f)})`);
  for (const [column, f] of Object.entries(spec.keys ?? {})) add([`${l.table}.${column}`], f, true);
  for (const [column, f] of Object.entries(spec.columns ?? {})) add([`${l.table}.${column}`], f, false);
  if (spec.className) {
    const own = l.table !== 'classes' && l.columns.some(([c]) => c === 'class_name') ? [`${l.table}.class_name`] : [];
    add([...own, 'classes.class_name'], spec.className, false);
  }
  for (const f of Object.values(spec.known ?? {})) add([], f, false);
  if (spec.driver) fields.push(`\`Driver[0]\` → \`mrp.drivers\` and \`driver_id\`${spec.driver === 'required' ? ' (key)' : ''}`);
  return `- \`${l.path || '(envelope)'}\` → \`${l.table}\`: ${fields.join(', ')}`;
}

/**
 * The wire field behind every typed column, per endpoint, rendered from the declarations for
 * docs/warehouse.md (a generated section, so it cannot drift from them).
 */
export function wireColumnsDoc(endpoints: readonly Endpoint[] = ENDPOINTS): string {
  const parts: string[] = [TYPE_LEGEND, ''];
  for (const ep of endpoints) {
    parts.push(`**${ep.name}** \`${ep.path}\` → \`${ep.arrayKey}[]\``, '', ...ep.levels.map(lineOf), '');
  }
  parts.push(
    '**Driver objects** (`Driver[0]` of any level above) fill `mrp.drivers`: `DriverId` → `driver_id` (key), ' +
      Object.entries(DRIVER_COLUMNS)
        .map(([column, wire]) => `\`${wire}\` → \`${column}\``)
        .join(', ') +
      '.',
  );
  return parts.join('\n');
}
