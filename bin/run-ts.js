#!/usr/bin/env node
// Runs one TypeScript entry file (a benchmark or report script) through tsx.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  process.stderr.write('usage: run-ts <file.ts> [args...]\n');
  process.exitCode = 2;
} else {
  const { register } = await import('tsx/esm/api');
  register();
  process.argv = [process.argv[0], entry, ...rest];
  await import(pathToFileURL(resolve(entry)).href);
}
