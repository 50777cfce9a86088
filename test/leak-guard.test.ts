import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';

import { describe, expect, inject, it, onTestFinished } from 'vitest';

import { createPool } from '../src/db/pool.js';
import { openEmbeddedServer } from '../src/embedded/server.js';
import { startSimulator } from '../src/simulator/server.js';

import { copyEmbeddedTemplate } from './helpers/db.js';
import { leaksSince, readResources, settledLeaks, type LeakScope } from './helpers/leaks.js';
import { runMisbehavingFile } from './helpers/misbehaving-run.js';

describe('the leak check (test/setup/leak-guard.ts)', () => {
  const scope = (dirs: string[] = []): LeakScope => ({ dirs, databasePorts: new Set([Number(new URL(inject('pgAdminUrl')).port || 5432)]) });

  it('names a child process left running, and forgets it once it has exited', async () => {
    const before = readResources(scope());
    const child = spawn('sleep', ['60']);
    expect(leaksSince(before, scope())).toEqual([`child process ${child.pid} still running: sleep 60`]);
    child.kill('SIGKILL');
    await once(child, 'close');
    expect(await settledLeaks(before, scope())).toEqual([]);
  });

  it('names a listening simulator, and forgets it once closed', async () => {
    const before = readResources(scope());
    const sim = await startSimulator({ scale: 'tiny', seed: 1 });
    expect(leaksSince(before, scope())).toEqual([`a server still listening on ${sim.url.slice('http://'.length)} (a simulator, proxy or endpoint not closed)`]);
    await sim.close();
    expect(await settledLeaks(before, scope())).toEqual([]);
  });

  it("names a pool's open connection to PostgreSQL, and forgets it once the pool has ended", async () => {
    const before = readResources(scope());
    const pool = createPool(inject('pgAdminUrl'), { max: 1 });
    await pool.query('SELECT 1');
    const leaks = leaksSince(before, scope());
    expect(leaks).toHaveLength(1);
    expect(leaks[0]).toMatch(/^a PostgreSQL connection still open, .* -> .*:\d+ \(a pool or client not ended\)$/);
    await pool.end();
    expect(await settledLeaks(before, scope())).toEqual([]);
  });

  it('names an embedded server left running under a directory the file made, though it is nobody\'s child', async () => {
    const dir = copyEmbeddedTemplate();
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const before = readResources(scope([dir]));
    const server = await openEmbeddedServer({ dir, purpose: 'leak check test' });
    try {
      expect(leaksSince(before, scope([dir]))).toEqual([expect.stringMatching(new RegExp(`^PostgreSQL server \\d+ still running on ${dir}/postgres$`))]);
      // Another file's (or the run's shared) server is not this file's leak.
      expect(leaksSince(before, scope([]))).toEqual([]);
    } finally {
      await server.close();
    }
    expect(await settledLeaks(before, scope([dir]))).toEqual([]);
  });
});

describe('the leak guard', () => {
  it('fails a test file that leaves a simulator listening, naming it', async () => {
    const { code, output } = await runMisbehavingFile('leaves-a-simulator');
    expect(code, output).toBe(1);
    expect(output).toContain('this test file left 1 thing(s) running');
    expect(output).toMatch(/a server still listening on 127\.0\.0\.1:\d+ \(a simulator, proxy or endpoint not closed\)/);
  });
});
