import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { ExactNumber } from '../exact-number.js';
import { redact, REDACTED } from '../secrets.js';

import type { ProbeSample } from './sample.js';

/**
 * A copy of a JSON value with the key taken out of everything that could hold it: strings (URLs,
 * echoed parameters, the key itself) and object keys have every form of it replaced, and a number
 * that spells it becomes the placeholder. The files are meant to become test fixtures.
 */
export function withoutKey(value: unknown, key: string): unknown {
  if (typeof value === 'string') return redact(value, [key]);
  if (typeof value === 'number') return String(value) === key ? REDACTED : value;
  // Written by JSON.stringify as a string of its digits: a sample file still shows what was sent.
  if (value instanceof ExactNumber) return value.text === key ? REDACTED : value;
  if (Array.isArray(value)) return value.map((v) => withoutKey(v, key));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // defineProperty: a field named "__proto__" stays a field.
    Object.defineProperty(out, redact(k, [key]), { value: withoutKey(v, key), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Writes each sample's body to `<dir>/<endpoint>.json` and what was asked to `<dir>/probe.json`; returns the files. */
export async function saveSamples(dir: string, samples: readonly ProbeSample[], key: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  for (const s of samples) {
    if (!s.body) continue;
    const file = join(dir, `${s.endpoint}.json`);
    await writeFile(file, `${JSON.stringify(withoutKey(s.body, key), null, 2)}\n`);
    files.push(file);
  }
  const index = samples.map(({ body: _body, ...rest }) => rest);
  const file = join(dir, 'probe.json');
  await writeFile(file, `${JSON.stringify(withoutKey(index, key), null, 2)}\n`);
  files.push(file);
  return files;
}
