#!/usr/bin/env node
// The `pitwall` command. Runs the TypeScript sources through tsx, so a fresh clone works
// right after `npm install` with no build step; a built dist/ (the production image) is
// used when present.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
if (existsSync(built)) {
  const { main } = await import(built);
  await main(process.argv.slice(2));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../src/cli.ts');
  await main(process.argv.slice(2));
}
