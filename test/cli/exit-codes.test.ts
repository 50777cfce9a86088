import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';

import { describe, expect, it } from 'vitest';

import { EXIT } from '../../src/commands/context.js';
import { runCli } from '../helpers/cli.js';

/** Every exit code a command can return is documented, in docs/commands.md's table and in --help. */

const COMMANDS_DOC = readFileSync(new URL('../../docs/commands.md', import.meta.url), 'utf8');

describe('exit codes', () => {
  const table = COMMANDS_DOC.slice(COMMANDS_DOC.indexOf('<!-- exit-codes:start'), COMMANDS_DOC.indexOf('<!-- exit-codes:end'));

  it.each(Object.entries(EXIT))('%s (%i) is in docs/commands.md', (_name, code) => {
    expect(table).toContain(`| \`${code}\` |`);
  });

  it('are said once: docs/configuration.md links to the table instead of listing them', () => {
    const configuration = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    expect(configuration).toContain('(commands.md#exit-codes)');
    expect(configuration).not.toMatch(/exit codes?:/i);
  });

  it('are all in --help', async () => {
    const help = (await runCli(['--help'], {})).stdout;
    const listed = help.slice(help.indexOf('Exit codes:'));
    for (const code of Object.values(EXIT)) expect(listed).toMatch(new RegExp(`\\b${code} `));
  });
});

/** The exit paths that once ended otherwise than the table says; each through a real process. */
describe('the exit code table holds for', () => {
  it('no command (2, with the usage) and an unknown one (2, one line)', async () => {
    const none = await runCli([], {});
    expect([none.code, none.stdout]).toEqual([EXIT.usage, expect.stringContaining('Usage: pitwall <command>')]);
    const unknown = await runCli(['frobnicate'], {});
    expect([unknown.code, unknown.stderr]).toEqual([EXIT.usage, 'pitwall: unknown command "frobnicate"; see pitwall --help\n']);
  });

  it('pitwall simulate on a port in use: 2, one line naming --port', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const r = await runCli(['simulate', '--port', String(port), '--scale', 'tiny'], {});
      expect(r.code).toBe(EXIT.usage);
      expect(r.stderr).toBe(`pitwall: --port ${port}: 127.0.0.1:${port} is already in use; choose another (0 for any free one) or stop what holds it\n`);
    } finally {
      blocker.close();
    }
  });
});
