import type { z } from 'zod';

import { flag, id, optDecimal, optIndexedText, optInt, optText, optUsDateTime } from '../api/schemas/primitives.js';

import type { Field, Level } from './declare.js';
import { DRIVER_COLUMNS } from './driver.js';
import type { Endpoint } from './endpoint.js';
import { ENDPOINTS } from './registry.js';

/** What each field type accepts, as a reader of the docs would say it. */
const TYPE_NAMES = new Map<z.ZodType, string>([
  [id, 'id (number or numeric text)'],
  [optInt, 'integer'],
  [optDecimal, 'decimal'],
  [flag, 'flag (true/false, 1/0, yes/no)'],
  [optText, 'text'],
  [optIndexedText, 'text (at most 500 characters)'],
  [optUsDateTime, 'US date-time (`5/11/2015 7:30 PM`)'],
]);

const typeName = (f: Field): string => TYPE_NAMES.get(f.type) ?? TYPE_NAMES.get((f.type as z.ZodOptional).unwrap?.() as z.ZodType) ?? 'value';

function rowsOf(l: Level): string[] {
  const { spec } = l;
  const out: string[] = [];
  const add = (columns: string[], f: Field, key: boolean) =>
    out.push(`| \`${l.path || '(envelope)'}\` | \`${f.wire}\` | ${columns.length ? columns.map((c) => `\`${c}\``).join(', ') : '(modelled, no column)'}${key ? ' (key)' : ''} | ${typeName(f)} |`);
  for (const [column, f] of Object.entries(spec.keys ?? {})) add([`${l.table}.${column}`], f, true);
  for (const [column, f] of Object.entries(spec.columns ?? {})) add([`${l.table}.${column}`], f, false);
  if (spec.className) {
    const own = l.table !== 'classes' && l.columns.some(([c]) => c === 'class_name') ? [`${l.table}.class_name`] : [];
    add([...own, 'classes.class_name'], spec.className, false);
  }
  for (const f of Object.values(spec.known ?? {})) add([], f, false);
  if (spec.driver) out.push(`| \`${l.path}\` | \`Driver[0]\` | \`mrp.drivers\`${spec.driver === 'required' ? ', `driver_id` (key)' : ', `driver_id`'} | driver |`);
  return out;
}

/**
 * The wire field behind every typed column, per endpoint, rendered from the declarations for
 * docs/warehouse.md (a generated section, so it cannot drift from them).
 */
export function wireColumnsDoc(endpoints: readonly Endpoint[] = ENDPOINTS): string {
  const parts: string[] = [];
  for (const ep of endpoints) {
    parts.push(`**${ep.name}** \`${ep.path}\` → \`${ep.arrayKey}[]\``, '', '| Level | Wire field | Column | Type |', '|---|---|---|---|');
    for (const l of ep.levels) parts.push(...rowsOf(l));
    parts.push('');
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
