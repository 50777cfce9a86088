import type { z } from 'zod';

import { typeDescription } from '../../api/schemas/primitives.js';
import type { Level } from '../../endpoints/declare.js';
import { driver, DRIVER_LIST, type PathSegment } from '../../endpoints/driver.js';
import { ExactNumber } from '../../exact-number.js';

import type { FieldError } from './types.js';

/**
 * Rounds of drop-and-reparse before giving up. One round drops every failing field zod reported;
 * a second is needed only when a schema checks a field after another passes, so a few suffice.
 */
const MAX_ROUNDS = 4;

/** A value as a reason quotes it: JSON (a number JSON.parse cannot carry, as sent), cut short. */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = value instanceof ExactNumber ? value.text : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** The declared type of the field an issue is about: a level's own field, or a field of its drivers. */
function fieldTypeAt(schema: z.ZodObject, path: readonly PropertyKey[]): z.ZodType | undefined {
  const [field, index, inner] = path;
  if (typeof field !== 'string') return undefined;
  const type = (schema.shape as Record<string, z.ZodType>)[field];
  if (path.length === 1) return type;
  if (field === DRIVER_LIST && typeof index === 'number' && typeof inner === 'string' && path.length === 3) {
    return (driver.shape as Record<string, z.ZodType>)[inner];
  }
  return undefined;
}

/**
 * A field error's or reject's reason as a sentence: `expected a decimal number, got "9.68 avg"`
 * for a field of one of the shared types, the validator's own words otherwise. A number
 * JSON.parse cannot carry is named as sent, not as the Infinity or rounded value it parsed to:
 * `1e400: out of range for a whole number (up to 2147483647 either way)`.
 */
export function fieldReason(level: Level, issue: z.core.$ZodIssue, value: unknown): string {
  const type = fieldTypeAt(level.schema as z.ZodObject, issue.path);
  const expected = type && typeDescription(type);
  if (!expected) return issueReason(issue);
  const got = valueAt(value, issue.path.filter((s): s is PathSegment => typeof s === 'string' || typeof s === 'number'));
  if (got instanceof ExactNumber) return `${shown(got)}: out of range for ${expected}`;
  return `expected ${expected}, got ${shown(got)}`;
}

/** A zod issue's reason, with the forms a union accepts (zod alone says only "Invalid input"). */
export function issueReason(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue.message;
  const forms = new Set(issue.errors.flat().map((i) => i.message.replace(/^Invalid input: /, '')));
  return `${issue.message}: ${[...forms].join('; ')}`;
}

/**
 * The field to drop for an issue at `path`: the deepest object field on it (an index names an
 * element, which cannot be dropped without shifting its siblings, so its list goes). Null when the
 * issue is about the item itself.
 */
function dropTarget(path: readonly PropertyKey[]): PathSegment[] | null {
  let end = -1;
  for (let i = 0; i < path.length; i += 1) if (typeof path[i] === 'string') end = i;
  if (end < 0) return null;
  const target = path.slice(0, end + 1);
  return target.every((s): s is PathSegment => typeof s === 'string' || typeof s === 'number') ? target : null;
}

const isPrefix = (a: readonly PathSegment[], b: readonly PathSegment[]): boolean =>
  a.length <= b.length && a.every((s, i) => s === b[i]);

/** Whether dropping `target` would take a key field, or something a key is read from. */
function touchesKey(level: Level, target: readonly PathSegment[]): boolean {
  return Object.values(level.key).some((k) => isPrefix(target, k) || isPrefix(k, target));
}

export function valueAt(value: unknown, path: readonly PathSegment[]): unknown {
  let v = value;
  for (const s of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PathSegment, unknown>)[s];
  }
  return v;
}

/**
 * `value` without the field at `path`; the containers along the path are copied, so `value`
 * itself (which stays the row's `raw`) is never changed. Returns `value` when there is no such field.
 */
function withoutField(value: unknown, path: readonly PathSegment[]): unknown {
  const [head, ...rest] = path;
  if (head === undefined || value === null || typeof value !== 'object') return value;
  if (!Object.prototype.hasOwnProperty.call(value, head)) return value;
  const copy = (Array.isArray(value) ? [...(value as unknown[])] : { ...value }) as Record<PathSegment, unknown>;
  if (rest.length === 0) {
    delete copy[head];
    return copy;
  }
  const inner = withoutField(copy[head], rest);
  if (inner === copy[head]) return value;
  // defineProperty: a field named "__proto__" (JSON.parse makes it an own field) stays a field.
  Object.defineProperty(copy, head, { value: inner, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** `Driver[].DriverFName` from `['Driver', 0, 'DriverFName']` under the level's own path. */
function jsonPath(level: Level, target: readonly PathSegment[]): string {
  let out = level.path;
  for (const s of target) out += typeof s === 'number' ? '[]' : `${out ? '.' : ''}${s}`;
  return out;
}

/** The table and row a dropped field belongs to: the level's, or a nested part's (a driver's). */
function owner(level: Level, target: readonly PathSegment[], data: unknown, context: Readonly<Record<string, unknown>>): Pick<FieldError, 'table' | 'rowKey'> {
  const [field, index, leaf] = target;
  const part = level.nested.find((p) => p.field === field);
  if (part && typeof index === 'number' && typeof leaf === 'string' && !Object.values(part.key).includes(leaf)) {
    const rowKey: Record<string, unknown> = {};
    for (const [column, wire] of Object.entries(part.key)) rowKey[column] = valueAt(data, [field!, index, wire]) ?? null;
    return { table: part.table, rowKey };
  }
  // The context may hold keys of the levels above that this level's table does not have.
  const rowKey: Record<string, unknown> = {};
  for (const column of level.context) if (column in context) rowKey[column] = context[column];
  for (const [column, wire] of Object.entries(level.key)) rowKey[column] = valueAt(data, wire) ?? null;
  return { table: level.table, rowKey };
}

export type Degraded<T> = { ok: true; data: T; fieldErrors: FieldError[] } | { ok: false; issues: z.core.$ZodIssue[] };

/**
 * After `level.schema` refused `value` with `error`: drops each failing field that is not a key
 * (from a copy), records it, and parses again, until the rest fits. Fails, with the issues to
 * reject the item for, when a key field fails or the item itself is unusable. The typed result
 * never holds a guessed value: a dropped field reads as missing, which its column stores as NULL.
 */
export function degrade(
  level: Level,
  value: unknown,
  error: z.ZodError,
  context: Readonly<Record<string, unknown>>,
): Degraded<Record<string, unknown>> {
  let working = value;
  let issues = error.issues;
  const dropped: Array<{ target: PathSegment[]; issue: z.core.$ZodIssue }> = [];
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const fatal: z.core.$ZodIssue[] = [];
    let changed = false;
    for (const issue of issues) {
      const target = dropTarget(issue.path);
      if (target === null || touchesKey(level, target)) {
        fatal.push(issue);
        continue;
      }
      const next = withoutField(working, target);
      if (next === working) continue; // a second issue on a field already dropped
      working = next;
      changed = true;
      dropped.push({ target, issue });
    }
    if (fatal.length > 0) return { ok: false, issues: fatal };
    if (!changed) return { ok: false, issues };
    const result = (level.schema as z.ZodObject).safeParse(working);
    if (result.success) {
      const fieldErrors = dropped.map(({ target, issue }) => ({
        ...owner(level, target, result.data, context),
        path: jsonPath(level, target),
        value: valueAt(value, target),
        reason: fieldReason(level, issue, value),
      }));
      return { ok: true, data: result.data, fieldErrors };
    }
    issues = result.error.issues;
  }
  return { ok: false, issues };
}
