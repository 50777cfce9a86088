import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { runCli } from '../helpers/cli.js';
import { copyEmbeddedTemplate } from '../helpers/db.js';
import { freePort } from '../helpers/ports.js';

import { serverRunning, serving, stderrLines } from './serving.js';

const portOf = async (env: Record<string, string>) => (await runCli(['sql', '--csv', "SELECT current_setting('port') AS port"], env)).stdout;

async function listening(port: number): Promise<Server> {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
  return blocker;
}

describe('the embedded server port', () => {
  const dir = copyEmbeddedTemplate();
  afterAll(async () => {
    if (serverRunning(dir)) await runCli(['sql', 'SELECT 1'], { PITWALL_DATA_DIR: dir });
    rmSync(dir, { recursive: true, force: true });
  });

  it('is PITWALL_SQL_PORT for whichever command starts the server, and the same one next time without it', async () => {
    const port = await freePort();
    expect(await portOf({ PITWALL_DATA_DIR: dir, PITWALL_SQL_PORT: String(port) })).toBe(`port\n${port}\n`);
    expect(readFileSync(join(dir, 'port'), 'utf8')).toBe(`${port}\n`);
    expect(await portOf({ PITWALL_DATA_DIR: dir })).toBe(`port\n${port}\n`);
  });

  it('taken by another program, is one line naming PITWALL_SQL_PORT, never another port', async () => {
    const remembered = Number(readFileSync(join(dir, 'port'), 'utf8'));
    const blocker = await listening(remembered);
    try {
      const r = await runCli(['sql', 'SELECT 1'], { PITWALL_DATA_DIR: dir });
      expect(r.code).toBe(2);
      expect(stderrLines(r.stderr)).toEqual([
        `pitwall: cannot open the warehouse at ${dir}: the embedded warehouse's port ${remembered} (the port it had last time, kept in ${join(dir, 'port')}) is in use by another program; set PITWALL_SQL_PORT to a free port`,
      ]);
      expect(serverRunning(dir)).toBe(false);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('is said in one line when the server already runs on another port than PITWALL_SQL_PORT asks for', async () => {
    const [running, asked] = [await freePort(), await freePort()];
    const cli = await serving({ PITWALL_DATA_DIR: dir, PITWALL_SQL_PORT: String(running) }, 60_000);
    try {
      const r = await runCli(['sql', '--csv', "SELECT current_setting('port') AS port"], { PITWALL_DATA_DIR: dir, PITWALL_SQL_PORT: String(asked) });
      expect(r.stdout).toBe(`port\n${running}\n`);
      const lines = stderrLines(r.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`already running on port ${running}, not on PITWALL_SQL_PORT's ${asked}`);
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  });

  it('is given to serve-sql by --sql-port or its older name --port', async () => {
    for (const flag of ['--sql-port', '--port']) {
      const port = await freePort();
      const cli = await serving({ PITWALL_DATA_DIR: dir }, 60_000, [flag, String(port)]);
      cli.child.kill('SIGTERM');
      await cli.exited;
      expect(readFileSync(join(dir, 'port'), 'utf8')).toBe(`${port}\n`);
    }
    const both = await runCli(['serve-sql', '--port', '5433', '--sql-port', '5434'], { PITWALL_DATA_DIR: dir });
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('pitwall: --port is another name for --sql-port: give one of them\n');
  });

  it('out of range, is refused like any setting, naming the variable', async () => {
    const r = await runCli(['sql', 'SELECT 1'], { PITWALL_DATA_DIR: dir, PITWALL_SQL_PORT: '70000' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PITWALL_SQL_PORT: expected an integer from 1 to 65535, got "70000"');
  });
});
