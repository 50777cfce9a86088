import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The checkout's own bin/pitwall.js, which runs src/ through tsx: what a clone runs. */
export const CHECKOUT_PITWALL_BIN = fileURLToPath(new URL('../../bin/pitwall.js', import.meta.url));

/**
 * What the tests start: the test run's compiled copy of the checkout (test/setup/built-cli.ts),
 * or, outside a test run (a bench script), the checkout's own.
 */
export const PITWALL_BIN = process.env.TEST_PITWALL_BIN ?? CHECKOUT_PITWALL_BIN;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  child: ChildProcess;
  /** Settles when the process has exited, however it ended; `exitedAt` is performance.now() then. */
  exited: Promise<CliResult & { exitedAt: number }>;
}

/**
 * A process's bound when its test names none: a hang guard, shorter than a test's own
 * (vitest.config.ts), so that a hung process is killed and its output shown before the test ends.
 */
const PROCESS_HANG_MS = 240_000;

/**
 * Starts `pitwall <args>` as a real process and leaves it running, for tests that signal or kill
 * it. Every process is bounded by `timeoutMs`, whatever the test does: none is left behind.
 */
export function startCli(args: string[], env: Record<string, string>, timeoutMs = PROCESS_HANG_MS): RunningCli {
  const child = spawn(process.execPath, [PITWALL_BIN, ...args], {
    // TMPDIR is the run's directory (test/setup/run-dir.ts): what a process leaves there is swept.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}), ...env },
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

/** Runs `pitwall <args>` as a real process, the way a user or a scheduler would. */
export async function runCli(args: string[], env: Record<string, string>, timeoutMs = PROCESS_HANG_MS): Promise<CliResult> {
  const { code, signal, stdout, stderr } = await startCli(args, env, timeoutMs).exited;
  return { code, signal, stdout, stderr };
}
