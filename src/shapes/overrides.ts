import type { EndpointName } from '../endpoints/types.js';

/**
 * A `PITWALL_SHAPES` file as the parsers use it: per endpoint and level path, the declared wire
 * fields it adjusts. Built once at start-up from the validated file (see compile.ts); the
 * declarations themselves never change, so every run states its adjustments explicitly.
 */
export interface FieldOverride {
  /** Other names the field may arrive under; the declared name's value wins where both are present. */
  readonly aliases: readonly string[];
  /** Turns a received value into one the declared type takes; a value it does not fit passes unchanged. */
  readonly coerce: ((value: unknown) => unknown) | null;
}

/** A level's adjusted fields, by declared wire name. */
export type LevelOverrides = ReadonlyMap<string, FieldOverride>;

export interface EndpointOverrides {
  /** By level path as `pitwall drift` prints it; a level's drivers at `<path>.Driver[]`. */
  readonly levels: ReadonlyMap<string, LevelOverrides>;
  /**
   * The digest of the endpoint's part of the file. It takes part in the endpoint's unchanged-body
   * check, so a body loaded before the file changed is derived again after.
   */
  readonly digest: string;
}

export interface Shapes {
  /** The file's path as given, and the SHA-256 of its bytes: recorded on every run. */
  readonly file: string;
  readonly digest: string;
  readonly endpoints: ReadonlyMap<EndpointName, EndpointOverrides>;
}

/** The path a level's nested drivers are adjusted under. */
export const driverLevelPath = (levelPath: string): string => `${levelPath}${levelPath ? '.' : ''}Driver[]`;

/**
 * `item` as the declared schema should see it: each adjusted field filled from its first alias
 * present when the declared name is missing, then coerced. A copy: the item itself stays what
 * the upstream sent, which is what `raw` keeps.
 */
export function prepareItem(item: unknown, own: LevelOverrides | undefined, drivers: LevelOverrides | undefined): unknown {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
  let out = own ? adjust(item as Record<string, unknown>, own) : (item as Record<string, unknown>);
  const list = out.Driver;
  if (drivers && Array.isArray(list)) {
    if (out === item) out = copy(out);
    define(out, 'Driver', list.map((d) => (d !== null && typeof d === 'object' && !Array.isArray(d) ? adjust(d as Record<string, unknown>, drivers) : d)));
  }
  return out;
}

function adjust(obj: Record<string, unknown>, fields: LevelOverrides): Record<string, unknown> {
  let out = obj;
  for (const [name, o] of fields) {
    let value = Object.hasOwn(obj, name) ? obj[name] : undefined;
    if (value === undefined) {
      const alias = o.aliases.find((a) => Object.hasOwn(obj, a) && obj[a] !== undefined);
      if (alias === undefined) continue;
      value = obj[alias];
    }
    const next = o.coerce ? o.coerce(value) : value;
    if (Object.hasOwn(obj, name) && next === obj[name]) continue;
    if (out === obj) out = copy(obj);
    define(out, name, next);
  }
  return out;
}

function copy(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) define(out, k, v);
  return out;
}

// defineProperty: a field named "__proto__" (JSON.parse makes it an own field) stays a field.
function define(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
