import { spawn, type ChildProcess } from 'node:child_process';

import type pg from 'pg';

import { PITWALL_BIN, type CliResult } from '../helpers/cli.js';

export interface RunningCli {
  child: ChildProcess;
  /** Settles when the process exits; the result of runCli. */
  exited: Promise<CliResult & { exitedAt: number }>;
}

/** Starts `pitwall <args>` as a real process that the test can signal while it runs. */
export function startCli(args: string[], env: Record<string, string>, timeoutMs = 60_000): RunningCli {
  const child = spawn(process.execPath, [PITWALL_BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exited = new Promise<CliResult & { exitedAt: number }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, exitedAt: performance.now() });
    });
  });
  return { child, exited };
}

/** Polls `sql` (a single number `n`) until it reaches `atLeast`; real time, since a real process is being watched. */
export async function waitForCount(db: pg.Pool, sql: string, atLeast: number, timeoutMs = 30_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const n = Number((await db.query<{ n: number }>(sql)).rows[0]?.n ?? 0);
    if (n >= atLeast) return n;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${sql} to reach ${atLeast} (at ${n})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
