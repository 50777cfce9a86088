#!/usr/bin/env node
// The `pitwall` command. An installed package ships only dist/ (built by `npm pack`'s prepack)
// and runs it with plain Node. A checkout runs its TypeScript sources through tsx (a dev
// dependency), so an edit counts at once, with no build step and no stale dist/ in the way;
// without tsx (`npm install --omit=dev`) it runs a dist/ built by `npm run build`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const built = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

async function loadTsx() {
  try {
    return await import('tsx/esm/api');
  } catch {
    return undefined;
  }
}

const tsx = existsSync(source) ? await loadTsx() : undefined;
if (tsx) {
  tsx.register();
  const { main } = await import('../src/cli.ts');
  await main(process.argv.slice(2));
} else if (existsSync(built)) {
  const { main } = await import(built);
  await main(process.argv.slice(2));
} else {
  process.stderr.write('pitwall: neither tsx (a dev dependency) nor a built dist/ is here: run `npm install`, or `npm run build`\n');
  process.exitCode = 1;
}
