import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { z } from 'zod';

import type { EndpointName } from '../endpoints/types.js';
import { EXIT, PitwallError } from '../errors.js';
import { jsonErrorPhrase } from '../json-error-place.js';

import type { ShapeCatalog } from './catalog.js';
import { coercionSchema, compileCoercions } from './coerce.js';
import type { EndpointOverrides, FieldOverride, Shapes } from './overrides.js';

/**
 * The `PITWALL_SHAPES` file: per endpoint, level path (as `pitwall drift` prints it; `""` is the
 * envelope, `<level>.Driver[]` a level's drivers) and declared wire field, the aliases it may
 * arrive under and the coercions that turn its values into the declared type. docs/shapes.md
 * is its reference; `pitwall drift --suggest` writes one.
 */
const MAX_NAME = 200;
const fieldSchema = z
  .strictObject({
    aliases: z.array(z.string().min(1).max(MAX_NAME)).min(1).max(20).optional(),
    coerce: z.array(coercionSchema).min(1).max(10).optional(),
  })
  .refine((f) => f.aliases !== undefined || f.coerce !== undefined, 'names neither aliases nor coerce');

const fileSchema = z.strictObject({
  version: z.literal(1),
  endpoints: z.record(z.string(), z.record(z.string(), z.record(z.string(), fieldSchema))),
});

export type ShapesFile = z.output<typeof fileSchema>;

/** A failure to load the file, as one line naming the entry: `endpoints.results["Classes[]"].ClassName.aliases: ...`. */
export class ShapesFileError extends PitwallError {
  override readonly name = 'ShapesFileError';
  // A configuration file refused in one line, as a bad setting is.
  readonly code = 'shapes-file';
  readonly exitStatus = EXIT.usage;
  readonly expected = true;
}

/** `endpoints.results["Classes[].Races[].Results[]"].AvgStart.coerce[0].pattern`, from a zod issue path. */
function entry(path: readonly PropertyKey[]): string {
  let out = '';
  for (const s of path) {
    if (typeof s === 'number') out += `[${s}]`;
    else if (typeof s === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(s)) out += `${out ? '.' : ''}${s}`;
    else out += `[${JSON.stringify(String(s))}]`;
  }
  return out || '(file)';
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
const list = (names: Iterable<string>) => {
  const all = [...names].map((n) => JSON.stringify(n));
  return all.length > 8 ? `${all.slice(0, 8).join(', ')}, ...` : all.join(', ');
};

/** The entries a valid file may not hold: endpoints, levels and fields the declarations do not have, aliases that clash. */
function checkAgainst(file: ShapesFile, catalog: ShapeCatalog): string | null {
  for (const [ep, levels] of Object.entries(file.endpoints)) {
    const known = catalog.get(ep);
    if (!known) return `${entry(['endpoints', ep])}: no such endpoint; one of ${list(catalog.keys())}`;
    for (const [path, fields] of Object.entries(levels)) {
      const declared = known.get(path);
      if (!declared) return `${entry(['endpoints', ep, path])}: no such level of ${ep}; one of ${list(known.keys())}`;
      const taken = new Map<string, string>();
      for (const [name, f] of Object.entries(fields)) {
        const at = entry(['endpoints', ep, path, name]);
        if (!declared.has(name)) return `${at}: not a declared field of that level; one of ${list(declared)}`;
        for (const alias of f.aliases ?? []) {
          if (declared.has(alias)) return `${at}.aliases: "${alias}" is a declared field of that level itself`;
          const other = taken.get(alias);
          if (other !== undefined) return `${at}.aliases: "${alias}" is already an alias of ${other}`;
          taken.set(alias, name);
        }
      }
    }
  }
  return null;
}

/** Parses and checks a file's text; throws ShapesFileError with one line. */
export function parseShapesFile(text: string, catalog: ShapeCatalog): ShapesFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new ShapesFileError(`not JSON: ${jsonErrorPhrase(text, message) ?? oneLine(message)}`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const keys = issue.code === 'unrecognized_keys' ? ` (${list(issue.keys)})` : '';
    throw new ShapesFileError(`${entry(issue.path)}: ${oneLine(issue.message)}${keys}`);
  }
  const problem = checkAgainst(parsed.data, catalog);
  if (problem !== null) throw new ShapesFileError(oneLine(problem));
  return parsed.data;
}

/** The file as the parsers use it; each endpoint's part gets a digest of its own, so only what it adjusts is derived again. */
export function compileShapes(file: ShapesFile, path: string, digest: string): Shapes {
  const endpoints = new Map<EndpointName, EndpointOverrides>();
  for (const [ep, levels] of Object.entries(file.endpoints)) {
    const compiled = new Map<string, Map<string, FieldOverride>>();
    for (const [levelPath, fields] of Object.entries(levels)) {
      compiled.set(
        levelPath,
        new Map(Object.entries(fields).map(([name, f]) => [name, { aliases: f.aliases ?? [], coerce: f.coerce ? compileCoercions(f.coerce) : null }])),
      );
    }
    const part = createHash('sha256').update(JSON.stringify(levels)).digest('hex');
    endpoints.set(ep as EndpointName, { levels: compiled, digest: part });
  }
  return { file: path, digest, endpoints };
}

/** Reads, checks and compiles the file at `path`; throws ShapesFileError with one line. */
export function loadShapesFile(path: string, catalog: ShapeCatalog): Shapes {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ShapesFileError(code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? String(err)})`);
  }
  const digest = createHash('sha256').update(bytes).digest('hex');
  return compileShapes(parseShapesFile(bytes.toString('utf8'), catalog), path, digest);
}
