import { chownSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

import { EmbeddedServerError } from './errors.js';

/** The system user the embedded PostgreSQL server runs as, when it cannot run as this process. */
export interface ServerUser {
  name: string;
  uid: number;
  gid: number;
}

/**
 * PostgreSQL refuses to run as root. When pitwall runs as root (a container, a CI runner), the
 * server runs as the system's `postgres` user, or `nobody` where there is none: accounts every
 * Linux system has or that a PostgreSQL package made, so pitwall never adds users to the system.
 * Null when this process is not root: then the server runs as this process's user.
 */
export function serverUser(): ServerUser | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const passwd = readFileSync('/etc/passwd', 'utf8').split('\n').map((line) => line.split(':'));
  for (const name of ['postgres', 'nobody']) {
    const entry = passwd.find((f) => f[0] === name);
    if (entry) return { name, uid: Number(entry[2]), gid: Number(entry[3]) };
  }
  throw new EmbeddedServerError(
    'pitwall runs as root and the system has neither a postgres nor a nobody user to run the embedded PostgreSQL as (it refuses root)',
    'run pitwall as another user, or set DATABASE_URL',
  );
}

/**
 * The first directory above `path` that `user` cannot pass through, or null when it reaches
 * `path`: every directory above it must be searchable by that user, who is neither their owner
 * nor (usually) in their group. /root (mode 0700) and a mktemp -d directory are the common cases.
 */
export function blockingDirectory(path: string, user: ServerUser): { at: string; mode: number } | null {
  for (let at = dirname(path); ; at = dirname(at)) {
    const st = statSync(at);
    const searchable = st.uid === user.uid ? st.mode & 0o100 : st.gid === user.gid ? st.mode & 0o010 : st.mode & 0o001;
    if (!searchable) return { at, mode: st.mode & 0o777 };
    if (dirname(at) === at) return null;
  }
}

/**
 * Gives `path` and everything under it to `user` (a copied data directory arrives as root's).
 * Each directory's entries before the directory itself, so that `path` owned by `user` means the
 * whole tree is: an open checks only `path`, and a process killed halfway leaves `path` as it was
 * for the next open to finish the work (top first, it left root's files under a directory that
 * looked done, and the server could not write its log).
 */
export function chownTree(path: string, user: ServerUser, chown: typeof chownSync = chownSync): void {
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) chownTree(child, user, chown);
      else chown(child, user.uid, user.gid);
    }
  }
  chown(path, user.uid, user.gid);
}
