import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { EXIT } from '../../src/commands/context.js';
import { runCli } from '../helpers/cli.js';

/** Every exit code a command can return is documented, in the README and in --help. */

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('exit codes', () => {
  const paragraph = README.slice(README.indexOf('Exit codes:'), README.indexOf('\n\n', README.indexOf('Exit codes:')));

  it.each(Object.entries(EXIT))('%s (%i) is in the README', (_name, code) => {
    expect(paragraph).toContain(`\`${code}\``);
  });

  it('are all in --help', async () => {
    const help = (await runCli(['--help'], {})).stdout;
    const listed = help.slice(help.indexOf('Exit codes:'));
    for (const code of Object.values(EXIT)) expect(listed).toMatch(new RegExp(`\\b${code} `));
  });
});
