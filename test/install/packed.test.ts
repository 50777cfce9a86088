import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The package as a user gets it: `npm pack` of this checkout (its prepack builds dist/), installed
 * from the tarball into an empty directory with npm's registry and cache, then run through the
 * `pitwall` the install puts in node_modules/.bin. One installed copy serves every case: what
 * differs between them is the directory around it, not what npm installed.
 */

const checkout = fileURLToPath(new URL('../../', import.meta.url));

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end (bounded by timeoutMs), with PATH and HOME only unless told more. */
function run(command: string, args: string[], cwd: string, timeoutMs: number, env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** tsconfig files are JSON with comments (whole lines here). */
const stripComments = (text: string) => text.replace(/^\s*\/\/.*$/gm, '');

const ok = (r: Ran) => expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr }).toEqual({ code: 0, stderr: '' });

/** Processes whose command line names a path under dir: a server the demo left behind would. */
async function processesUnder(dir: string): Promise<string[]> {
  const ps = await run('ps', ['-eo', 'args='], '/', 10_000);
  return ps.stdout.split('\n').filter((line) => line.includes(dir) && !line.startsWith('ps '));
}

describe('the packed package, installed from its tarball', () => {
  let base: string;
  let app: string;
  let files: string[];
  let pitwall: string;

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'pitwall-packed-'));
    // npm pack in the checkout: the environment's npm settings (registry, cache) apply as for a user.
    const packed = await run('npm', ['pack', '--pack-destination', base], checkout, 180_000, process.env as Record<string, string>);
    ok(packed);
    const tarball = join(base, readdirSync(base).find((f) => f.endsWith('.tgz')) ?? 'no tarball');
    files = (await run('tar', ['-tzf', tarball], base, 30_000)).stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));
    app = join(base, 'app');
    mkdirSync(app);
    const installed = await run('npm', ['install', '--no-audit', '--no-fund', tarball], app, 240_000, process.env as Record<string, string>);
    ok(installed);
    pitwall = join(app, 'node_modules', '.bin', 'pitwall');
  }, 420_000);

  afterAll(() => {
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('holds the built command, the migrations and the docs, and no tests, bench or sources', () => {
    for (const needed of ['package.json', 'README.md', 'CHANGELOG.md', 'bin/pitwall.js', 'dist/cli.js', 'dist/commands/demo.js',
      'dist/simulator/server.js', 'migrations/0000_init.sql', 'migrations/meta/_journal.json', 'docs/cookbook.md', 'docs/warehouse.md']) {
      expect(files, needed).toContain(needed);
    }
    // Every module the command may load lazily (each command, the simulator) is compiled; only the
    // maintainer's docs generator is left out (tsconfig.build.json says why).
    const excluded = (JSON.parse(stripComments(readFileSync(join(checkout, 'tsconfig.build.json'), 'utf8'))) as { exclude: string[] }).exclude;
    const modules = (readdirSync(join(checkout, 'src'), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts') && !excluded.includes(`src/${f}`))
      .map((f) => `dist/${f.replace(/\.ts$/, '.js')}`);
    expect(modules.length).toBeGreaterThan(100);
    expect(modules.filter((m) => !files.includes(m))).toEqual([]);
    const allowed = /^(package\.json|README\.md|CHANGELOG\.md|bin\/pitwall\.js|dist\/.+\.js|migrations\/(meta\/)?[\w.]+\.(sql|json)|docs\/[\w-]+\.md)$/;
    expect(files.filter((f) => !allowed.test(f))).toEqual([]);
    // Every doc the README links is in the package beside it.
    const readme = readFileSync(join(checkout, 'README.md'), 'utf8');
    const linkedDocs = [...readme.matchAll(/\]\((docs\/[\w-]+\.md)[#)]/g)].map((m) => m[1]!);
    expect(linkedDocs.length).toBeGreaterThan(3);
    expect(linkedDocs.filter((doc) => !files.includes(doc))).toEqual([]);
  });

  it('runs with plain Node: no tsx installed, --help answers', async () => {
    expect(existsSync(join(app, 'node_modules', 'tsx'))).toBe(false);
    const help = await run(pitwall, ['--help'], app, 30_000);
    ok(help);
    expect(help.stdout).toMatch(/^ {2}demo /m);
  });

  it("runs the demo, and the follow-up queries that the demo and the installed docs suggest fit 120 columns", async () => {
    chmodSync(base, 0o755);
    const demo = await run(pitwall, ['demo', '--dir', '.pitwall/demo'], app, 120_000);
    ok(demo);
    expect(demo.stdout).toMatch(/^Loaded \d+ events/m);
    // The cookbook the demo names is the installed package's own copy.
    expect(/more recipes in (\S+)\):/.exec(demo.stdout)?.[1]).toBe(realpathSync(join(app, 'node_modules', 'pitwall', 'docs', 'cookbook.md')));
    expect(await processesUnder(base)).toEqual([]);

    const readme = readFileSync(join(app, 'node_modules', 'pitwall', 'docs', 'operations.md'), 'utf8');
    const queries = (text: string) =>
      text.split('\n').map((line) => line.trim()).filter((line) => /^PITWALL_DATA_DIR=\.pitwall\/demo npx pitwall sql /.test(line));
    const suggested = queries(demo.stdout);
    expect(suggested.length).toBeGreaterThanOrEqual(2);
    expect(queries(readme)).toEqual(suggested);
    for (const command of suggested) {
      const answer = await run('sh', ['-c', command], app, 60_000);
      expect({ command, code: answer.code, stderr: answer.code === 0 ? '' : answer.stderr }).toEqual({ command, code: 0, stderr: '' });
      expect(answer.stdout.split('\n').length, command).toBeGreaterThan(3);
      expect(Math.max(...answer.stdout.split('\n').map((l) => l.length)), command).toBeLessThanOrEqual(120);
    }
    expect(await processesUnder(base)).toEqual([]);
  }, 300_000);

  it('runs the demo as the suite user (root in CI and containers) inside a mode-700 directory', async () => {
    chmodSync(base, 0o700);
    const demo = await run(pitwall, ['demo', '--scale', 'tiny', '--dir', join(app, 'private-demo')], app, 120_000);
    ok(demo);
    expect(demo.stdout).toMatch(/^Loaded \d+ events/m);
    expect(await processesUnder(base)).toEqual([]);
  });
});
