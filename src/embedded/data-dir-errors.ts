import { EXIT } from '../errors.js';

import { EmbeddedServerError } from './errors.js';

/** File-system error codes that mean "this directory cannot hold a warehouse", in words. */
const CAUSES: Record<string, string> = {
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EEXIST: 'a file stands where a directory should be',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
};

/**
 * A file-system failure on the warehouse directory itself (creating it, its lock, its password
 * file), as one line naming the setting that chose the directory: otherwise a read-only
 * PITWALL_DATA_DIR surfaces as an EROFS stack trace from deep in the lock code. Null for any
 * other error, which is left as it is.
 */
export function dataDirError(err: unknown, dir: string, setting: string): EmbeddedServerError | null {
  const e = err as NodeJS.ErrnoException;
  if (!e || typeof e.code !== 'string' || typeof e.path !== 'string') return null;
  // No such directory to make one in, said of a directory being made: a file system that makes
  // none there (/proc, some virtual ones). Of a file in the directory, it is another story.
  const cause = e.code === 'ENOENT' && e.syscall === 'mkdir' ? 'no directory can be made there' : CAUSES[e.code];
  if (cause === undefined) return null;
  if (e.path !== dir && !e.path.startsWith(`${dir}/`) && !dir.startsWith(`${e.path}/`)) return null;
  return new EmbeddedServerError(
    `${setting} (${dir}) is not writable: ${cause} (${e.code})`,
    `set ${setting} to a directory pitwall may write, or set DATABASE_URL to use a PostgreSQL server`,
    e.message,
    EXIT.usage,
  );
}
