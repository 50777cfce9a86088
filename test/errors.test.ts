import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

import ts from 'typescript';
import { describe, expect, it } from 'vitest';

import { RoleError } from '../src/analytics/grant-readonly.js';
import { CharsetError } from '../src/api/charset.js';
import { ApiError, ConfigError, PayloadError, UpstreamDownError } from '../src/api/errors.js';
import { BodyDecodeError, BodyTooLargeError, ShortBodyError } from '../src/api/read-body.js';
import { UsageError } from '../src/commands/context.js';
import { DatabaseError } from '../src/db/errors.js';
import { PoolingModeError } from '../src/db/pooler-check.js';
import { WarehouseUnavailableError } from '../src/db/warehouse-unavailable.js';
import { WarehouseUpgradeError } from '../src/db/warehouse-upgrade-error.js';
import { WarehouseBusyError } from '../src/embedded/data-dir-lock.js';
import { EmbeddedServerError } from '../src/embedded/errors.js';
import { EXIT, PitwallError } from '../src/errors.js';
import { KeyRefusedError, UpstreamUnreachableError } from '../src/probe/sample.js';
import { ShapesFileError } from '../src/shapes/file.js';
import { BadRequestError } from '../src/simulator/http.js';
import { ListKeyError } from '../src/sync/bad-body.js';
import { ScopeStageError } from '../src/sync/scope-failure.js';
import { RunFencedError } from '../src/sync/sql/sync-runs.js';

/**
 * Every error class in src/ is built on PitwallError, so the CLI can read how it ends a command
 * from its fields. The classes are found in the source, not listed by hand: a new
 * `class X extends Error` (or TypeError, or another library's error) fails here.
 */

const root = resolve(import.meta.dirname, '..');

interface DeclaredClass {
  name: string;
  /** The `extends` expression as written: `Error`, `PitwallError`, `pg.DatabaseError`. */
  base: string;
  exported: boolean;
  /** `src/api/errors.ts:29` */
  at: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every class in src/ that extends something, declared or as an expression. */
function declaredClasses(): DeclaredClass[] {
  const found: DeclaredClass[] = [];
  for (const path of sourceFiles(join(root, 'src'))) {
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isClassLike(node)) {
        const extended = node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0];
        if (extended) {
          const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
          found.push({
            name: node.name?.text ?? '(anonymous class)',
            base: extended.expression.getText(source),
            exported: ts.getCombinedModifierFlags(node as ts.Declaration) & ts.ModifierFlags.Export ? true : false,
            at: `${relative(root, path)}:${line}`,
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** Where a class's chain of `extends` ends: PitwallError, or the first base not declared in src/ (`Error`, `EventEmitter`). */
function rootOf(cls: DeclaredClass, byName: ReadonlyMap<string, DeclaredClass>): string {
  let base = cls.base;
  for (let depth = 0; depth < 20 && base !== 'PitwallError'; depth++) {
    const next = byName.get(base);
    if (!next) break;
    base = next.base;
  }
  return base;
}

/** One of each error, with the code, exit status and print rule it must have: the CLI's exit codes rest on these. */
const EXAMPLES: ReadonlyArray<[PitwallError, code: string, exitStatus: number, expected: boolean]> = [
  [new UsageError('unknown option --x'), 'usage', EXIT.usage, true],
  [new ConfigError([{ variable: 'DATABASE_URL', message: 'required' }]), 'config', EXIT.usage, true],
  [new ShapesFileError('no such file'), 'shapes-file', EXIT.usage, true],
  [new RoleError('role r does not exist'), 'role', EXIT.usage, true],
  [new PoolingModeError('PITWALL_LOCK_DATABASE_URL', 'DATABASE_URL (u) reaches a transaction-pooling PgBouncer'), 'pooling-mode', EXIT.usage, true],
  [new KeyRefusedError('the upstream refused MRP_API_KEY'), 'key-refused', EXIT.keyRefused, true],
  [new UpstreamUnreachableError('no answer'), 'upstream-unreachable', EXIT.upstreamUnreachable, true],
  [new WarehouseUnavailableError({ warehouse: 'w', problem: 'p', remedy: 'r' }), 'warehouse-unavailable', EXIT.failed, true],
  [new WarehouseUpgradeError({ warehouse: 'w', problem: 'p', remedy: 'r' }), 'warehouse-upgrade', EXIT.failed, true],
  [new WarehouseBusyError('/d', { pid: 1, host: 'h', purpose: 'sync', startedAt: '' }, 1000), 'warehouse-busy', EXIT.failed, true],
  [new EmbeddedServerError('problem', 'remedy'), 'embedded-server', EXIT.failed, true],
  [new BadRequestError('body is not valid JSON'), 'bad-request', EXIT.usage, true],
  [new BodyTooLargeError('received', 1024), 'body-too-large', EXIT.failed, true],
  [new BodyDecodeError('broken gzip'), 'body-decode', EXIT.failed, false],
  [new ShortBodyError(1203, 2406), 'body-short', EXIT.failed, false],
  [new CharsetError('a body in charset x-unknown, which pitwall cannot decode'), 'body-charset', EXIT.failed, false],
  [new ApiError('GET x failed: HTTP 500', { kind: 'http', retryable: true, url: 'x', status: 500 }), 'api', EXIT.failed, false],
  [new PayloadError('not JSON', { snippet: '{' }), 'payload', EXIT.failed, false],
  [new UpstreamDownError(5), 'upstream-down', EXIT.failed, false],
  [new ListKeyError('results: the response has no "Results" list'), 'list-key', EXIT.failed, false],
  [new ScopeStageError('load', new Error('boom')), 'scope-stage', EXIT.failed, false],
  [new DatabaseError('database error', { retryable: false }), 'database', EXIT.failed, false],
  [new RunFencedError(7, 'abandoned'), 'run-fenced', EXIT.failed, false],
];

describe('the error base', () => {
  const classes = declaredClasses();
  const byName = new Map(classes.map((c) => [c.name, c]));
  // Anything whose chain ends in a name like Error, TypeError or pg.DatabaseError is an error.
  const errors = classes.filter((c) => c.name !== 'PitwallError' && /Error$/.test(rootOf(c, byName)));

  it('finds the error classes of src/', () => {
    expect(errors.length).toBeGreaterThanOrEqual(EXAMPLES.length);
    expect(classes.find((c) => c.name === 'PitwallError')).toMatchObject({ base: 'Error', at: expect.stringMatching(/^src\/errors\.ts:/) });
  });

  it('is the base of every error class in src/', () => {
    const offenders = errors.filter((c) => rootOf(c, byName) !== 'PitwallError').map((c) => `${c.at} ${c.name} extends ${c.base}`);
    expect(offenders, 'extend PitwallError (src/errors.ts), with a code, an exit status and whether it is expected').toEqual([]);
  });

  it('has an example below of every exported error class, so each one is checked', () => {
    const exported = errors.filter((c) => c.exported).map((c) => c.name);
    expect(new Set(exported).size).toBe(exported.length);
    expect(EXAMPLES.map(([err]) => err.constructor.name).sort()).toEqual([...exported].sort());
  });

  it.each(EXAMPLES.map((e) => [e[0].constructor.name, ...e] as const))('%s: code, exit status, print rule', (_name, err, code, exitStatus, expected) => {
    expect(err).toBeInstanceOf(PitwallError);
    expect(err).toBeInstanceOf(Error);
    expect({ code: err.code, exitStatus: err.exitStatus, expected: err.expected }).toEqual({ code, exitStatus, expected });
    expect(err.code).toMatch(/^[a-z]+(-[a-z]+)*$/);
    expect(Object.values(EXIT)).toContain(err.exitStatus);
  });

  it('gives each class its own code', () => {
    const codes = EXAMPLES.map(([err]) => err.code);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('keeps the subclass a warehouse upgrade has, and the cause', () => {
    const cause = new Error('pg_upgrade failed');
    const err = new WarehouseUpgradeError({ warehouse: 'w', problem: 'p', remedy: 'r' }, { cause });
    expect(err).toBeInstanceOf(WarehouseUnavailableError);
    expect(err.cause).toBe(cause);
    expect(new ScopeStageError('extract', cause).cause).toBe(cause);
  });
});
