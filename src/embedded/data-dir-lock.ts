import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** Who holds an embedded warehouse, as written in its lock file. */
export interface LockHolder {
  pid: number;
  host: string;
  /** What the holder is doing, e.g. `sync`, `serve-sql`. */
  purpose: string;
  /** The port it serves the warehouse on over the Postgres protocol, once it listens. */
  port?: number;
  startedAt: string;
}

/** The embedded warehouse is open in another process (or already open in this one). */
export class WarehouseBusyError extends Error {
  override readonly name = 'WarehouseBusyError';
  readonly holder: LockHolder;

  constructor(dir: string, holder: LockHolder) {
    const serving = holder.port ? `, serving it on 127.0.0.1:${holder.port}` : '';
    super(
      `the embedded warehouse in ${dir} is in use by pitwall ${holder.purpose} (pid ${holder.pid} on ${holder.host}${serving}); ` +
        'stop that process first, or set DATABASE_URL to use a PostgreSQL server',
    );
    this.holder = holder;
    // An expected condition with a complete message: the CLI prints `stack` for failures, and a
    // trace into this file would only bury the one line a user needs.
    this.stack = `${this.name}: ${this.message}`;
  }
}

export interface DataDirLock {
  /** Records the port the holder serves on, so a refused process can say where to connect. */
  setPort(port: number): void;
  /** Removes the lock file if it is still ours. Safe to call twice. */
  release(): void;
}

export const LOCK_FILE = 'warehouse.lock';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(path: string): LockHolder | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
  } catch {
    return null;
  }
}

/** A lock file nobody can read: being written this instant, or left half-written by a crash. */
function unreadableAndOld(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs > 5_000;
  } catch {
    return true;
  }
}

/**
 * Takes the exclusive lock on an embedded warehouse directory: a file created with O_EXCL that
 * names the holder. PGlite has no lock of its own, and two processes writing one data
 * directory would corrupt it, so this is what keeps a second `pitwall` off it. A lock left by a
 * process that died (same host, pid gone) is taken over; on another host (a shared volume) the
 * pid cannot be checked, so such a lock is respected and the message says whose it is.
 */
export function lockDataDir(dir: string, purpose: string): DataDirLock {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  const me: LockHolder = { pid: process.pid, host: hostname(), purpose, startedAt: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readHolder(path);
      const stale =
        holder === null ? unreadableAndOld(path) : holder.host === me.host && holder.pid !== process.pid && !alive(holder.pid);
      if (!stale || attempt > 0) throw new WarehouseBusyError(dir, holder ?? { ...me, purpose: 'unknown', pid: 0 });
      unlinkSync(path);
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(me));
    } finally {
      closeSync(fd);
    }
    break;
  }
  let released = false;
  const ours = () => readHolder(path)?.pid === process.pid;
  return {
    setPort(port) {
      if (!released && ours()) writeFileSync(path, JSON.stringify({ ...me, port }));
    },
    release() {
      if (released) return;
      released = true;
      if (ours()) unlinkSync(path);
    },
  };
}
