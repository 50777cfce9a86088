import { appendFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { EmbeddedServerError } from './errors.js';
import { exec, type PgTools } from './pg-tools.js';
import { chownTree } from './server-user.js';

export const SUPERUSER = 'postgres';

/**
 * initdb into a scratch directory beside PGDATA, renamed into place once complete: a pitwall
 * killed during initdb leaves no half-made data directory that would look like a cluster next
 * time. `dir` is the warehouse directory, named in the error.
 */
export async function initCluster(tools: PgTools, data: string, dir: string, password: string): Promise<void> {
  const scratch = `${data}.init`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(dirname(scratch), { recursive: true });
  mkdirSync(scratch, { mode: 0o700 });
  const pwfile = join(scratch, '.pwfile');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (tools.user) chownTree(scratch, tools.user);
  // initdb wants an empty directory; the password file is moved out of the way by giving it a
  // directory of its own one level down.
  const fresh = join(scratch, 'data');
  try {
    await exec(tools, tools.bin.initdb, ['-D', fresh, '-U', SUPERUSER, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--locale=C']);
  } catch (err) {
    const said = (err as Error).message;
    throw new EmbeddedServerError(
      `initdb could not create the embedded PostgreSQL in ${data}: ${said.split('\n').find((l) => /error|fatal/i.test(l)) ?? said.split('\n')[0]}`,
      `check that ${dir} is writable and its disk has room`,
      said,
    );
  }
  // Local TCP only: no Unix socket (its default directory may not exist or be writable here).
  appendFileSync(
    join(fresh, 'postgresql.conf'),
    "\n# pitwall's embedded warehouse\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\n",
  );
  renameSync(fresh, data);
  rmSync(scratch, { recursive: true, force: true });
}
