import { ExactNumber, jsonText } from '../../exact-number.js';

/**
 * The shape of the bodies of one endpoint, as a tree of the JSON paths seen in them. A tree,
 * not a map of path strings: walking a body then builds no strings, only counts, and the paths
 * are spelled once per flush.
 */
export interface ShapeNode {
  /** Times the path was present: for an array's items (`X[]`), how many items there were. */
  seen: number;
  /** JSON types seen, as TYPE_BITS. */
  types: number;
  /** The first scalar seen here, as JSON text, truncated. */
  example: string | undefined;
  fields: Map<string, ShapeNode> | undefined;
  items: ShapeNode | undefined;
}

const TYPE_BITS = { object: 1, array: 2, string: 4, number: 8, boolean: 16, null: 32 } as const;
export type JsonType = keyof typeof TYPE_BITS;
const TYPE_NAMES = Object.keys(TYPE_BITS) as JsonType[];

/** Examples are evidence for a person reading the report, not data: a short prefix is enough. */
export const EXAMPLE_CHARS = 80;

/** The path of a whole body (the envelope level). */
export const ROOT = '$';

export const newNode = (): ShapeNode => ({ seen: 0, types: 0, example: undefined, fields: undefined, items: undefined });

export function exampleText(value: unknown): string {
  const text = jsonText(value) ?? String(value);
  return text.length > EXAMPLE_CHARS ? `${text.slice(0, EXAMPLE_CHARS)}…` : text;
}

/**
 * Counts `value` and everything under it into `node`. Recursive: the client refuses bodies nested
 * deeper than MAX_BODY_DEPTH, so the depth is bounded.
 */
export function observe(node: ShapeNode, value: unknown): void {
  node.seen += 1;
  if (value === null) {
    node.types |= TYPE_BITS.null;
  } else if (Array.isArray(value)) {
    node.types |= TYPE_BITS.array;
    const items = (node.items ??= newNode());
    for (const item of value) observe(items, item);
    return;
  } else if (value instanceof ExactNumber) {
    node.types |= TYPE_BITS.number;
  } else if (typeof value === 'object') {
    node.types |= TYPE_BITS.object;
    const fields = (node.fields ??= new Map());
    for (const key in value) {
      let child = fields.get(key);
      if (!child) fields.set(key, (child = newNode()));
      observe(child, (value as Record<string, unknown>)[key]);
    }
    return;
  } else {
    const t = typeof value;
    node.types |= t === 'string' ? TYPE_BITS.string : t === 'number' ? TYPE_BITS.number : t === 'boolean' ? TYPE_BITS.boolean : 0;
  }
  if (node.example === undefined) node.example = exampleText(value);
}

export interface ShapePath {
  path: string;
  types: JsonType[];
  seen: number;
  example: string | null;
}

export function typeNames(bits: number): JsonType[] {
  return TYPE_NAMES.filter((t) => (bits & TYPE_BITS[t]) !== 0);
}

/** The child path of a field of `parent`; the root's fields have bare names. */
export const fieldPath = (parent: string, key: string): string => (parent === ROOT ? key : `${parent}.${key}`);

/** Every path in the tree, `root` first, arrays' items written `X[]`. */
export function paths(root: ShapeNode): ShapePath[] {
  const out: ShapePath[] = [];
  const visit = (node: ShapeNode, path: string) => {
    out.push({ path, types: typeNames(node.types), seen: node.seen, example: node.example ?? null });
    if (node.items) visit(node.items, `${path}[]`);
    if (node.fields) for (const [key, child] of node.fields) visit(child, fieldPath(path, key));
  };
  visit(root, ROOT);
  return out;
}

/**
 * The path whose count a path's presence rate is measured against: a field's object (`A[]` for
 * `A[].B`, the root for `A`), an array's items' array (`A` for `A[]`). Null for the root.
 */
export function parentPath(path: string): string | null {
  if (path === ROOT) return null;
  if (path.endsWith('[]')) return path.slice(0, -2);
  const dot = path.lastIndexOf('.');
  return dot < 0 ? ROOT : path.slice(0, dot);
}
