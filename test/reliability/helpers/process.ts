import { spawn, type ChildProcess } from 'node:child_process';

import { PITWALL_BIN, type CliResult } from '../../helpers/cli.js';

export interface RunningCli {
  child: ChildProcess;
  /** Settles when the process has exited, however it ended. */
  exited: Promise<CliResult>;
}

/** Starts `pitwall <args>` as a real process and leaves it running, for tests that kill it. */
export function startCli(args: string[], env: Record<string, string>, timeoutMs = 60_000): RunningCli {
  const child = spawn(process.execPath, [PITWALL_BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  // A bound on every process, whatever the test does: never leave one behind.
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exited = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { child, exited };
}

/** Resolves once `ready()` holds (polled every few ms), or false once the process has exited. */
export async function until(ready: () => boolean, cli: RunningCli): Promise<boolean> {
  let exited = false;
  void cli.exited.then(() => (exited = true));
  while (!ready()) {
    if (exited) return false;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return true;
}

/** A small seeded generator (mulberry32), so a failing sequence of kill moments can be replayed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
