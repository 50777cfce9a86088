import { spawn } from 'node:child_process';

import { peakRssBytes, ROOT } from './child.js';

export interface SyncProcessResult {
  summary: { status?: string; requests?: number; tables?: { results?: { inserted?: number } } };
  wallMs: number;
  /** The sync process's peak resident set (VmHWM), in MB. */
  peakRssMb: number;
  /** The peak of `sampleOther` over the run, in MB (0 without it). */
  otherPeakMb: number;
}

/**
 * Runs `pitwall sync --json` (as `command` gives it) in a child process with `env`, sampling its
 * peak memory every 25 ms until it exits, and `sampleOther` (another process's memory, in bytes:
 * the embedded PostgreSQL server's) alongside. Fails when the sync exits non-zero.
 */
export async function runSyncProcess(command: string[], env: Record<string, string>, sampleOther?: () => number | null): Promise<SyncProcessResult> {
  const started = performance.now();
  const child = spawn(process.execPath, command, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PITWALL_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  let peak = 0;
  let otherPeak = 0;
  const sample = () => {
    const hwm = child.pid === undefined ? null : peakRssBytes(child.pid);
    if (hwm !== null) peak = Math.max(peak, hwm);
    otherPeak = Math.max(otherPeak, sampleOther?.() ?? 0);
  };
  const timer = setInterval(sample, 25);
  // Its output is complete only once the pipes have closed, which comes after 'exit'.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    // 'exit' comes before the pipes close; the last sample is as late as /proc allows.
    child.once('exit', (c) => resolve(c));
  });
  clearInterval(timer);
  const wallMs = Math.round(performance.now() - started);
  await closed;
  if (code !== 0) throw new Error(`pitwall sync exited with ${code}: ${stdout.slice(0, 500)}`);
  return { summary: JSON.parse(stdout || '{}') as SyncProcessResult['summary'], wallMs, peakRssMb: Math.round(peak / 1048576), otherPeakMb: Math.round(otherPeak / 1048576) };
}
