import { ZodArray, ZodDefault, ZodNullable, ZodObject, ZodOptional, ZodPipe, type z } from 'zod';

import { envelope } from '../../api/schemas/envelope.js';
import type { EndpointOverrides } from '../../shapes/overrides.js';

import { fieldPath, parentPath, ROOT } from './tree.js';

/**
 * A schema and where in a body its objects sit: `''` for the body itself (the envelope is always
 * added), `Classes[]` the items of its list, `Classes[].Races[]` the items of a nested list that
 * the level above declares `z.array(z.unknown())` and the extractor parses on its own. An
 * endpoint's declared levels (src/endpoints/) are such.
 */
export interface ShapeLevel {
  readonly path: string;
  readonly schema: z.ZodObject;
}

/** The schema under optional/nullable/default wrappers and transforms. */
function bare(schema: z.ZodType): z.ZodType {
  let s: z.ZodType = schema;
  for (;;) {
    if (s instanceof ZodOptional || s instanceof ZodNullable) s = s.unwrap() as z.ZodType;
    else if (s instanceof ZodDefault) s = s.unwrap() as z.ZodType;
    else if (s instanceof ZodPipe) s = s.in as z.ZodType;
    else return s;
  }
}

function addObject(out: Set<string>, level: string, schema: z.ZodObject): void {
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const path = fieldPath(level, key);
    out.add(path);
    const inner = bare(field);
    if (inner instanceof ZodArray) {
      out.add(`${path}[]`);
      const element = bare(inner.element as z.ZodType);
      if (element instanceof ZodObject) addObject(out, `${path}[]`, element);
    } else if (inner instanceof ZodObject) {
      addObject(out, path, inner);
    }
  }
}

/**
 * Every path the schemas model: their fields, nested objects and arrays, each level's own path
 * and the lists leading to it. Derived from the declarations' schemas, so editing a declaration is all it takes.
 */
export function modelledPaths(levels: readonly ShapeLevel[]): ReadonlySet<string> {
  const out = new Set<string>([ROOT]);
  addObject(out, ROOT, envelope);
  for (const { path, schema } of levels) {
    const level = path || ROOT;
    for (let p: string | null = level; p !== null; p = parentPath(p)) out.add(p);
    addObject(out, level, schema);
  }
  return out;
}

/** The paths of the aliases a `PITWALL_SHAPES` file declares for an endpoint. */
export function aliasPaths(overrides: EndpointOverrides): string[] {
  const out: string[] = [];
  for (const [level, fields] of overrides.levels) {
    for (const o of fields.values()) for (const alias of o.aliases) out.push(fieldPath(level || ROOT, alias));
  }
  return out;
}

/**
 * The paths that count as unmodelled fields: unmodelled, under a modelled parent. A new object
 * field is one drift, not one per path inside it.
 */
export function isUnmodelledField(path: string, modelled: ReadonlySet<string>): boolean {
  if (modelled.has(path)) return false;
  const parent = parentPath(path);
  return parent !== null && modelled.has(parent);
}
