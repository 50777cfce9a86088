import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { EXIT } from '../../src/commands/context.js';
import { runCli } from '../helpers/cli.js';

/** Every exit code a command can return is documented, in docs/commands.md and in --help. */

const COMMANDS_DOC = readFileSync(new URL('../../docs/commands.md', import.meta.url), 'utf8');

describe('exit codes', () => {
  const paragraph = COMMANDS_DOC.slice(COMMANDS_DOC.indexOf('Exit codes:'), COMMANDS_DOC.indexOf('\n\n', COMMANDS_DOC.indexOf('Exit codes:')));

  it.each(Object.entries(EXIT))('%s (%i) is in docs/commands.md', (_name, code) => {
    expect(paragraph).toContain(`\`${code}\``);
  });

  it('are all in --help', async () => {
    const help = (await runCli(['--help'], {})).stdout;
    const listed = help.slice(help.indexOf('Exit codes:'));
    for (const code of Object.values(EXIT)) expect(listed).toMatch(new RegExp(`\\b${code} `));
  });
});
