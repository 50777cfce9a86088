import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { LOCK_FILE, WarehouseBusyError, withDataDirLock } from '../../src/embedded/data-dir-lock.js';
import { warehouseTempDir } from '../helpers/temp-dir.js';

describe('the lock on an embedded warehouse directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = warehouseTempDir('pitwall-lock');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names its holder while held, and is gone once the work is done, also when it throws', async () => {
    const seen = await withDataDirLock(dir, 'sync', async () => JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')));
    expect(seen).toMatchObject({ pid: process.pid, purpose: 'sync', host: hostname() });
    await expect(withDataDirLock(dir, 'sync', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(() => readFileSync(join(dir, LOCK_FILE))).toThrow(/ENOENT/);
  });

  it('makes a second holder wait for the first', async () => {
    const order: string[] = [];
    // Another process's lock, as far as the file says: this process cannot hold it twice.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: process.ppid, host: hostname(), purpose: 'worker', startedAt: '' }));
    const waiting = withDataDirLock(dir, 'sync', async () => void order.push('second'));
    await sleep(300);
    order.push('first done');
    rmSync(join(dir, LOCK_FILE));
    await waiting;
    expect(order).toEqual(['first done', 'second']);
  });

  it('takes over a lock left by a process that died', async () => {
    // Pids are below 2^22 on Linux, so this one cannot be running.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 2 ** 22 + 1, host: hostname(), purpose: 'sync', startedAt: '' }));
    const holder = await withDataDirLock(dir, 'demo', async () => JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')), 2_000);
    expect(holder).toMatchObject({ pid: process.pid, purpose: 'demo' });
  });

  it('waits on a lock held from another host, whose process it cannot check, and then says whose it is', async () => {
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: 2 ** 22 + 1, host: `not-${hostname()}`, purpose: 'worker', startedAt: '' }));
    const err = await withDataDirLock(dir, 'sync', async () => 'ran', 500).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WarehouseBusyError);
    expect((err as Error).message).toMatch(/locked by pitwall worker \(pid 4194305 on not-/);
  });
});
