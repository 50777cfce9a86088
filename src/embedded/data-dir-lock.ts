import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { EXIT, PitwallError } from '../errors.js';

/** Who holds an embedded warehouse's lock, as written in its lock file. */
export interface LockHolder {
  pid: number;
  host: string;
  /** What the holder is doing, e.g. `sync`, `serve-sql`. */
  purpose: string;
  startedAt: string;
}

/** The lock stayed with another live process for longer than a start or stop can take. */
export class WarehouseBusyError extends PitwallError {
  override readonly name = 'WarehouseBusyError';
  readonly code = 'warehouse-busy';
  readonly exitStatus = EXIT.failed;
  readonly expected = true;
  readonly holder: LockHolder;

  constructor(dir: string, holder: LockHolder, waitedMs: number) {
    super(
      `the embedded warehouse in ${dir} has been locked by pitwall ${holder.purpose} (pid ${holder.pid} on ${holder.host}) ` +
        `for ${Math.round(waitedMs / 1000)} s while it starts or stops the server; if that process is stuck, stop it and try again`,
    );
    this.holder = holder;
  }
}

export const LOCK_FILE = 'warehouse.lock';

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !zombie(pid);
}

/** A process that has exited but that its parent has not reaped yet (a detached server's parent is init's stand-in). */
function zombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
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

function tryTake(path: string, me: LockHolder): LockHolder | null {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const holder = readHolder(path);
    const stale = holder === null ? unreadableAndOld(path) : holder.host === me.host && !alive(holder.pid);
    if (!stale) return holder ?? { ...me, purpose: 'unknown', pid: 0 };
    // A lock left by a process that died (pitwall killed while starting the server): take it.
    try {
      unlinkSync(path);
    } catch {
      // Another waiter removed it first; the next attempt decides.
    }
    return tryTake(path, me);
  }
  try {
    writeSync(fd, JSON.stringify(me));
  } finally {
    closeSync(fd);
  }
  return null;
}

/**
 * Runs `fn` holding the lock on an embedded warehouse directory: a file created with O_EXCL that
 * names the holder. Every pitwall process takes it to start, join or stop the directory's server,
 * so two processes never start two servers on one directory, and one never stops a server another
 * has just joined. It is held for those moments only, so a waiter waits (up to `timeoutMs`)
 * rather than failing. A lock left by a process that died is taken over; on another host (a shared
 * volume) the pid cannot be checked, so such a lock is waited on, and the error says whose it is.
 */
export async function withDataDirLock<T>(dir: string, purpose: string, fn: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  const me: LockHolder = { pid: process.pid, host: hostname(), purpose, startedAt: new Date().toISOString() };
  const started = Date.now();
  for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
    const holder = tryTake(path, me);
    if (!holder) break;
    if (holder.pid === process.pid && holder.host === me.host) {
      throw new Error(`the lock on ${dir} is already held by this process (${holder.purpose})`);
    }
    if (Date.now() - started > timeoutMs) throw new WarehouseBusyError(dir, holder, Date.now() - started);
    await sleep(delay);
  }
  try {
    return await fn();
  } finally {
    if (readHolder(path)?.pid === process.pid) unlinkSync(path);
  }
}
