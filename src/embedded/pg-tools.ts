import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import type { PostgresBinaries } from './binaries.js';
import type { ServerUser } from './server-user.js';

const run = promisify(execFile);

/** Who runs PostgreSQL's programs, and which ones. */
export interface PgTools {
  user: ServerUser | null;
  bin: PostgresBinaries;
}

/** Runs one of PostgreSQL's programs as the server's user; its stderr is the error's message. */
export async function exec(tools: PgTools, file: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(file, args, {
      ...(tools.user ? { uid: tools.user.uid, gid: tools.user.gid } : {}),
      // The server's messages in plain English, whatever the user's locale.
      env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
      // A working directory the server's user may not be able to enter would fail the spawn.
      cwd: tools.user ? '/' : process.cwd(),
    });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(e.stderr?.trim() || e.message);
  }
}

export function pgCtl(tools: PgTools, data: string, args: string[]): Promise<string> {
  return exec(tools, tools.bin.pgCtl, ['-D', data, ...args]);
}
