import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import pg from 'pg';

import { startCli, type RunningCli } from '../helpers/cli.js';

export const serverRunning = (dir: string) => existsSync(join(dir, 'postgres', 'postmaster.pid'));

/**
 * A command's stderr lines, less the orphan sweep's: as root, every embedded open looks after the
 * clusters other test files left (see cluster-home.ts), and whichever open gets there first logs
 * the line, so it may turn up beside any command of a parallel run.
 */
export const stderrLines = (stderr: string): string[] => stderr.split('\n').filter((l) => l && !/embedded PostgreSQL cluster .* orphan/.test(l));

/** `pitwall serve-sql` as a real process, once it has printed its banner; killed after `timeoutMs` whatever happens. */
export async function serving(env: Record<string, string>, timeoutMs: number, args: string[] = []): Promise<RunningCli> {
  const cli = startCli(['serve-sql', ...args], env, timeoutMs);
  let out = '';
  await new Promise<void>((resolve, reject) => {
    cli.child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('stop with Ctrl-C')) resolve();
    });
    void cli.exited.then((r) => reject(new Error(`serve-sql exited ${r.code}: ${r.stderr}`)));
  });
  return cli;
}

/** A session as a BI tool opens it: the read-only role serve-sql prints, its password from its file. */
export function readerClient(dir: string, port: number): pg.Client {
  const password = readFileSync(join(dir, 'reader-password'), 'utf8').trim();
  return new pg.Client({ host: '127.0.0.1', port, user: 'pitwall_reader', password, database: 'postgres' });
}
