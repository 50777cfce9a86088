import { readFileSync } from 'node:fs';

import type pg from 'pg';

/** Milliseconds of CPU (user + system) a process has used, or null when /proc does not show it. */
export function processCpuMs(pid: number): number | null {
  try {
    // Fields after the command name: state is field 3; utime and stime are fields 14 and 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Linux reports them in clock ticks, 100 per second on every platform Node runs on.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** The pid of the server process behind a connection, when that server runs on this machine. */
export async function backendPid(client: pg.ClientBase | pg.Pool): Promise<number | null> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  const pid = rows[0]?.pid ?? null;
  return pid !== null && processCpuMs(pid) !== null ? pid : null;
}

export interface Measured<T> {
  value: T;
  wallMs: number;
  /** This process's CPU time over the step. */
  clientCpuMs: number;
  /** The backend's CPU time over the step; null when the server is not local. */
  serverCpuMs: number | null;
}

/** Runs `fn`, timing it by the wall clock and by the CPU this process and `serverPid` spent on it. */
export async function measure<T>(serverPid: number | null, fn: () => Promise<T>): Promise<Measured<T>> {
  const server0 = serverPid === null ? null : processCpuMs(serverPid);
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const value = await fn();
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  const server1 = serverPid === null ? null : processCpuMs(serverPid);
  return {
    value,
    wallMs,
    clientCpuMs: (cpu.user + cpu.system) / 1000,
    serverCpuMs: server0 === null || server1 === null ? null : server1 - server0,
  };
}
