import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { EXIT } from '../../src/commands/context.js';
import { CONFIG_VARIABLES } from '../../src/config.js';
import { TOOLING_VARIABLES } from '../../src/unknown-variables.js';
import { runCli } from '../helpers/cli.js';

/**
 * A misspelt setting is not ignored without a word: each unknown PITWALL_* or MRP_* variable
 * gets one warning naming the nearest setting, before whatever the command then says.
 */

const lines = (text: string) => text.split('\n').filter((l) => l !== '');
const warning = (name: string, nearest: string) => `pitwall: warning: ${name} is not a setting pitwall reads, so it is ignored; did you mean ${nearest}?`;

const dir = mkdtempSync(join(tmpdir(), 'pitwall-unknown-variables-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('unknown variables', () => {
  it('get one warning each naming the nearest setting; settings and the test tooling\'s variables get none', async () => {
    const r = await runCli(['sync'], {
      PITWALL_MAX_RSP: '3',
      PITWALL_LOG_LEVL: 'debug',
      MRP_API_KY: 'k',
      PITWALL_MAX_RPS: '0',
      PITWALL_SOAK: '1',
      PITWALL_CRASH_SEED: '7',
      PITWALL_TEST_HOLD: 'x',
      DATABASE_URLS: 'not ours to judge',
    });
    // The misspelt key explains the error that follows it.
    expect(r.code).toBe(EXIT.usage);
    expect(lines(r.stderr)).toEqual([
      warning('MRP_API_KY', 'MRP_API_KEY'),
      warning('PITWALL_LOG_LEVL', 'PITWALL_LOG_LEVEL'),
      warning('PITWALL_MAX_RSP', 'PITWALL_MAX_RPS'),
      expect.stringMatching(/^pitwall: .*MRP_API_KEY: required, not set/),
    ]);
  });

  it("do not include the sources file's keyEnv variables", async () => {
    const file = join(dir, 'sources.json');
    writeFileSync(file, JSON.stringify({ sources: [{ name: 'track-b', keyEnv: 'MRP_KEY_TRACK_B' }, { name: 'track-c', keyEnv: 'PITWALL_KEY_C' }] }));
    const env = { MRP_KEY_TRACK_B: 'b', PITWALL_KEY_C: 'c', PITWALL_KEY_D: 'd', PITWALL_CONCURRENCY: 'many' };
    const viaEnv = await runCli(['sync'], { ...env, PITWALL_SOURCES: file });
    const viaFlag = await runCli(['sync', '--sources', file], env);
    for (const r of [viaEnv, viaFlag]) {
      expect(r.code).toBe(EXIT.usage);
      expect(lines(r.stderr).filter((l) => l.includes('warning'))).toEqual([
        'pitwall: warning: PITWALL_KEY_D is not a setting pitwall reads, so it is ignored; the nearest setting is PITWALL_MAX_RPS (pitwall --help lists them)',
      ]);
    }
  });

  it('known as tooling: every PITWALL_* or MRP_* variable the tests, benchmarks and CI read that is not a setting', () => {
    const root = new URL('../../', import.meta.url).pathname;
    const read = new Set<string>();
    // process.env.X or env['X'] in TypeScript; ${X} or $X in the CI's shell scripts.
    const walk = (path: string, reads: RegExp): void => {
      if (statSync(path).isDirectory()) return readdirSync(path).forEach((name) => walk(join(path, name), reads));
      for (const m of readFileSync(path, 'utf8').matchAll(reads)) read.add(m[1]!);
    };
    walk(join(root, 'test'), /env(?:\.|\[['"])((?:PITWALL|MRP)_[A-Z0-9_]+)/g);
    walk(join(root, 'bench'), /env(?:\.|\[['"])((?:PITWALL|MRP)_[A-Z0-9_]+)/g);
    walk(join(root, '.ci'), /\$\{?((?:PITWALL|MRP)_[A-Z0-9_]+)/g);
    const settings = new Set(CONFIG_VARIABLES.map((v) => v.env));
    const tooling = [...read].filter((name) => !settings.has(name) && !name.startsWith('PITWALL_TEST_')).sort();
    expect(tooling).toContain('PITWALL_SOAK');
    expect(tooling).toEqual([...TOOLING_VARIABLES].sort());
  });
});
