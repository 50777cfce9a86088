import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RUN_TS = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));

export interface SimulatorProcess {
  url: string;
  key: string;
  resultRows: number;
  pid: number;
  /** Closes its stdin and waits for it to exit. */
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** A simulator in its own process (bench/lib/simulator-process.ts). */
export async function startSimulatorProcess(scale: string, seed: number, latencyMs: number): Promise<SimulatorProcess> {
  const child = spawn(process.execPath, [RUN_TS, 'bench/lib/simulator-process.ts', scale, String(seed), String(latencyMs)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`simulator process exited with ${code} before listening`)));
  });
  lines.close();
  const info = JSON.parse(first) as { url: string; key: string; resultRows: number };
  return {
    ...info,
    pid: child.pid!,
    stop: async () => {
      child.stdin!.end();
      await exited(child);
    },
  };
}

/** The process's peak resident set (VmHWM) in bytes, or null once it is gone. */
export function peakRssBytes(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /^VmHWM:\s+(\d+) kB/m.exec(status);
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Runs a bench entry file in a fresh process and returns the JSON it prints on stdout. Each
 * measured section gets a process of its own, as `pitwall sync` does: a heap grown by an earlier
 * section (the loader's 200,000 rows) would otherwise slow the collector in the next one.
 */
export async function runBenchChild<T>(entry: string, args: string[]): Promise<T> {
  const child = spawn(process.execPath, [RUN_TS, entry, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c) => resolve(c));
  });
  if (code !== 0) throw new Error(`${entry} exited with ${code}`);
  return JSON.parse(stdout) as T;
}
