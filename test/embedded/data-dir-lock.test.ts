import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { LOCK_FILE, lockDataDir, WarehouseBusyError } from '../../src/embedded/data-dir-lock.js';

describe('the lock on an embedded warehouse directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pitwall-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a second holder, naming the first and the port it serves on', () => {
    const lock = lockDataDir(dir, 'serve-sql');
    lock.setPort(5433);
    const err = (() => {
      try {
        lockDataDir(dir, 'sync');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(WarehouseBusyError);
    expect((err as Error).message).toMatch(new RegExp(`pitwall serve-sql \\(pid ${process.pid} .*127\\.0\\.0\\.1:5433`));
    lock.release();
  });

  it('is free again once released, and releasing twice is harmless', () => {
    const lock = lockDataDir(dir, 'sync');
    lock.release();
    lock.release();
    const again = lockDataDir(dir, 'sync');
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    again.release();
  });

  it('takes over a lock left by a process that died', () => {
    // Pids are below 2^22 on Linux, so this one cannot be running.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 2 ** 22 + 1, host: hostname(), purpose: 'sync', startedAt: '' }));
    const lock = lockDataDir(dir, 'demo');
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid, purpose: 'demo' });
    lock.release();
  });

  it('respects a lock held from another host, whose process it cannot check', () => {
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 2 ** 22 + 1, host: `not-${hostname()}`, purpose: 'worker', startedAt: '' }));
    expect(() => lockDataDir(dir, 'sync')).toThrow(WarehouseBusyError);
  });
});
