import type { z } from 'zod';

import { DRIVER_COLUMNS, driver } from '../endpoints/driver.js';
import type { Endpoint } from '../endpoints/endpoint.js';
import { parentPath, ROOT, type JsonType } from '../sync/shape/tree.js';

import { compileCoercions, type Coercion } from './coerce.js';
import type { ShapesFile } from './file.js';
import { driverLevelPath } from './overrides.js';

/**
 * `pitwall drift --suggest` and `pitwall probe --suggest`: a ready `PITWALL_SHAPES` file for what
 * the shape report can explain. A modelled field missing from (nearly) every item beside one new
 * field of a compatible type becomes an alias; a field whose failing values all take one coercion
 * of the set becomes that coercion, checked against every failing value kept. What it cannot
 * decide (several candidates, values no coercion fixes) is a note, never a guess in the file.
 */

/** A path as the report counts it: how often present, in which JSON types, whether modelled, and whether a run found it missing. */
export interface PathEvidence {
  endpoint: string;
  path: string;
  seen: number;
  types: readonly JsonType[];
  modelled: boolean;
  /** The run that found every item without it (pitwall.shape_paths.missing_since_run_id), if any. */
  missingSinceRunId?: number | null;
  /** The last run that saw it. */
  lastRunId?: number | null;
}

/** The values of one field that failed its type, as received (JSON text). */
export interface FailingValues {
  endpoint: string;
  path: string;
  values: readonly string[];
}

export interface Suggestion {
  file: ShapesFile;
  /** What was suggested and why, and what could not be: one line each, for a person to review. */
  notes: string[];
}

/** A field missing from at least this share of the objects that could hold it counts as gone. */
export const GONE_BELOW = 0.05;

interface DeclaredField {
  level: string;
  name: string;
  type: z.ZodType;
}

/** Every declared field of an endpoint by its report path (`Classes[].Races[].Results[].ResultStart`). */
function declaredFields(ep: Endpoint): Map<string, DeclaredField> {
  const out = new Map<string, DeclaredField>();
  const at = (level: string, name: string) => (level ? `${level}.${name}` : name);
  for (const l of ep.levels) {
    const { spec } = l;
    const fields = [...Object.values(spec.keys ?? {}), ...Object.values(spec.columns ?? {}), ...Object.values(spec.known ?? {}), ...(spec.className ? [spec.className] : [])];
    for (const f of fields) out.set(at(l.path, f.wire), { level: l.path, name: f.wire, type: f.type });
    if (spec.driver) {
      const level = driverLevelPath(l.path);
      const shape = driver.shape as Record<string, z.ZodType>;
      for (const name of ['DriverId', ...Object.values(DRIVER_COLUMNS)]) out.set(at(level, name), { level, name, type: shape[name]! });
    }
  }
  return out;
}

/** Values of each JSON type a declared type is tried with: a type takes a JSON type when it takes one of them. */
const PROBES: Record<JsonType, unknown[]> = {
  string: ['1', 'x', '5/11/2015', 'true'],
  number: [1, 1.5],
  boolean: [true],
  null: [null],
  array: [[]],
  object: [{}],
};

const typesTaken = (type: z.ZodType): Set<JsonType> =>
  new Set((Object.keys(PROBES) as JsonType[]).filter((t) => t !== 'null' && PROBES[t].some((v) => type.safeParse(v).success)));

const nameOf = (path: string) => path.slice(path.lastIndexOf('.') + 1);

/** Coercions worth trying on a set of failing strings, most specific first. */
function candidateCoercions(values: readonly string[]): Coercion[] {
  const out: Coercion[] = [];
  const common = (pick: (a: string, b: string) => string) => values.reduce(pick);
  const suffix = common((a, b) => {
    let i = 0;
    while (i < a.length && i < b.length && a[a.length - 1 - i] === b[b.length - 1 - i]) i += 1;
    return a.slice(a.length - i);
  });
  const prefix = common((a, b) => {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
    return a.slice(0, i);
  });
  // Only the part that is not a number: `12.4 avg` and `9.4 avg` share `4 avg`, the unit is ` avg`.
  const unit = suffix.replace(/^[\d.,-]+/, '');
  const sign = prefix.replace(/[\d.,-]+$/, '');
  if (unit) out.push({ stripSuffix: unit });
  if (sign) out.push({ stripPrefix: sign });
  const norm = values.map((v) => v.trim().toLowerCase());
  const TRUE = ['yes', 'y', 'on', 'true', 't', 'x', '1'];
  const FALSE = ['no', 'n', 'off', 'false', 'f', '0', '-'];
  const trues = [...new Set(values.filter((_, i) => TRUE.includes(norm[i]!)))];
  const falses = [...new Set(values.filter((_, i) => FALSE.includes(norm[i]!)))];
  if (trues.length + falses.length > 0 && norm.every((v) => TRUE.includes(v) || FALSE.includes(v))) {
    const yes = trues.length ? trues : TRUE_DEFAULT_FOR(falses);
    const no = falses.length ? falses : FALSE_DEFAULT_FOR(trues);
    out.push({ booleans: { true: yes, false: no } });
  }
  for (const dateFormat of DATE_FORMATS) out.push({ dateFormat });
  out.push({ pattern: '(-?\\d+(?:\\.\\d+)?)' });
  return out;
}

/** The other half of a yes/no pair seen only one way so far, in the same style. */
const PAIRS: Record<string, string> = { yes: 'No', y: 'N', on: 'Off', true: 'False', t: 'F', x: '-', '1': '0', no: 'Yes', n: 'Y', off: 'On', false: 'True', f: 'T', '-': 'X', '0': '1' };
const TRUE_DEFAULT_FOR = (falses: string[]) => [...new Set(falses.map((f) => PAIRS[f.trim().toLowerCase()]!))];
const FALSE_DEFAULT_FOR = (trues: string[]) => [...new Set(trues.map((t) => PAIRS[t.trim().toLowerCase()]!))];

/** Date formats tried for a date field whose values the declared US form refuses. */
const DATE_FORMATS = ['YYYY-MM-DD', 'YYYY-MM-DD HH:mm:ss', 'YYYY-MM-DDTHH:mm:ss', 'YYYY-MM-DD HH:mm', 'YYYY-MM-DDTHH:mm', 'D.M.YYYY', 'D.M.YYYY HH:mm', 'YYYY/MM/DD', 'M-D-YYYY'];

/** The first coercion that makes the declared type take every failing value; null when none does. */
function fixingCoercion(type: z.ZodType, received: readonly unknown[]): Coercion | null {
  const strings = received.filter((v): v is string => typeof v === 'string');
  if (strings.length === 0 || strings.length !== received.length) return null;
  for (const c of candidateCoercions(strings)) {
    const apply = compileCoercions([c]);
    if (received.every((v) => type.safeParse(apply(v)).success)) return c;
  }
  return null;
}

const parseValue = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

export function suggestShapes(endpoints: readonly Endpoint[], paths: readonly PathEvidence[], failing: readonly FailingValues[]): Suggestion {
  const file: ShapesFile = { version: 1, endpoints: {} };
  const notes: string[] = [];
  const put = (ep: string, level: string, name: string, entry: { aliases?: string[]; coerce?: Coercion[] }) => {
    const levels = (file.endpoints[ep] ??= {});
    const fields = (levels[level] ??= {});
    fields[name] = { ...fields[name], ...entry };
  };
  for (const ep of endpoints) {
    const declared = declaredFields(ep);
    const mine = paths.filter((p) => p.endpoint === ep.name);
    const byPath = new Map(mine.map((p) => [p.path, p]));
    const count = (path: string | null) => (path === null ? 0 : (byPath.get(path)?.seen ?? 0));
    for (const [path, field] of declared) {
      const parent = parentPath(path) ?? ROOT;
      const of = count(parent === ROOT ? ROOT : parent);
      const evidence = byPath.get(path);
      const gone = evidence?.missingSinceRunId != null || (of > 0 && count(path) < of * GONE_BELOW);
      if (!gone) continue;
      const since = evidence?.missingSinceRunId ?? null;
      const taken = typesTaken(field.type);
      const candidates = mine.filter(
        (p) =>
          !p.modelled &&
          (parentPath(p.path) ?? ROOT) === parent &&
          p.types.some((t) => taken.has(t)) &&
          // Still arriving since the field went, or (counted over every body) in nearly every item that lacks it.
          (since !== null ? (p.lastRunId ?? 0) >= since : p.seen >= (of - count(path)) * (1 - GONE_BELOW)),
      );
      const at = `${ep.name} ${path}`;
      if (candidates.length === 1) {
        put(ep.name, field.level, field.name, { aliases: [nameOf(candidates[0]!.path)] });
        notes.push(`${at}: missing from ${of - count(path)} of ${of} items; ${nameOf(candidates[0]!.path)} appeared beside it: alias`);
      } else if (candidates.length > 1) {
        notes.push(`${at}: missing; several new fields beside it could be its new name (${candidates.map((c) => nameOf(c.path)).join(', ')}): none chosen, add the right one as an alias`);
      }
    }
    for (const f of failing.filter((x) => x.endpoint === ep.name)) {
      const field = declared.get(f.path);
      if (!field || f.values.length === 0) continue;
      const received = f.values.map(parseValue);
      const fix = fixingCoercion(field.type, received);
      const at = `${ep.name} ${f.path}`;
      if (fix) {
        put(ep.name, field.level, field.name, { coerce: [fix] });
        notes.push(`${at}: ${f.values.length} distinct failing value(s), e.g. ${f.values[0]}: ${JSON.stringify(fix)} fixes every one`);
      } else {
        notes.push(`${at}: ${f.values.length} distinct failing value(s), e.g. ${f.values[0]}: no coercion of the set fixes them all`);
      }
    }
  }
  return { file, notes };
}
