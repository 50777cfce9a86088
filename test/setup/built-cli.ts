import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Once per run, after run-dir.ts: the checkout as the installed package lays it out (bin/, dist/,
 * migrations/, docs/, package.json, node_modules/), with src/ compiled to dist/ file for file, so
 * that the few hundred `pitwall` processes the tests start load plain JavaScript, as an installed
 * package does. Through tsx each start cost about 0.4 s more CPU: a minute and a half of the
 * suite's two cores. It is compiled from the sources as they are now, so an edit still counts at
 * once; test/helpers/cli.ts starts it. The README's steps (readme-steps.test.ts) and the packed
 * install keep the checkout's own bin/pitwall.js, which a clone runs through tsx.
 */
export default async function setup(): Promise<void> {
  const root = join(process.env.TMPDIR ?? '/tmp', 'pitwall-built');
  const src = join(ROOT, 'src');
  await build({
    // esbuild's own glob: every .ts under src/, each to its own .js.
    entryPoints: [join(src, '**/*.ts')],
    outdir: join(root, 'dist'),
    outbase: src,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
  });
  mkdirSync(join(root, 'bin'));
  copyFileSync(join(ROOT, 'bin/pitwall.js'), join(root, 'bin/pitwall.js'));
  copyFileSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  for (const shared of ['migrations', 'docs', 'node_modules']) symlinkSync(join(ROOT, shared), join(root, shared));
  // The test files' processes start after the global setups and inherit this (as TMPDIR); the
  // pitwall processes the tests start get only the environment each test gives them.
  process.env.TEST_PITWALL_BIN = join(root, 'bin/pitwall.js');
}
