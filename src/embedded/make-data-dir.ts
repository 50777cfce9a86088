import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Makes `dir` (with `mode`) and the missing directories above it (with the usual mode), as
 * `mkdir -p` does but one level at a time, so a failure keeps the file system's own code:
 * Node's `recursive` reports ENOENT for a directory under a read-only mount, and loops for
 * ever where mkdir answers ENOENT below a parent that exists (/proc), blocking the process so
 * that even a signal goes unheard. dataDirError turns what this throws into one line.
 */
export function makeDataDir(dir: string, mode: number): void {
  const missing: string[] = [];
  for (let at = dirname(dir); dirname(at) !== at && !existsSync(at); at = dirname(at)) missing.unshift(at);
  // A file where the parent should be: mkdir says so (EEXIST), as `mkdir -p` does.
  if (missing.length === 0 && existsSync(dirname(dir)) && !statSync(dirname(dir)).isDirectory()) mkdirSync(dirname(dir));
  for (const path of [...missing, dir]) {
    try {
      mkdirSync(path, path === dir ? { mode } : {});
    } catch (err) {
      // There already, or made meanwhile by another process: fine when it is a directory.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(path).isDirectory()) throw err;
    }
  }
}
