import { readdirSync, readFileSync } from 'node:fs';

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

/**
 * Milliseconds of CPU used so far by every PostgreSQL process on this machine (backends,
 * WAL writer, checkpointer, autovacuum), or null when there is none to read (a remote server).
 */
export function postgresCpuMs(): number | null {
  let total = 0;
  let found = false;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue; // Gone since the listing.
    }
    const ms = processCpuMs(Number(entry));
    if (ms === null) continue;
    total += ms;
    found = true;
  }
  return found ? total : null;
}

/** CPU time of the three parties to a sync, over one step. */
export interface CpuSplit {
  pitwall: number;
  simulator: number | null;
  postgres: number | null;
}

/** Starts counting the CPU of this process, the simulator process and the local PostgreSQL. */
export function cpuSplit(simulatorPid: number): () => CpuSplit {
  const own0 = process.cpuUsage();
  const sim0 = processCpuMs(simulatorPid);
  const pg0 = postgresCpuMs();
  return () => {
    const own = process.cpuUsage(own0);
    const sim1 = processCpuMs(simulatorPid);
    const pg1 = postgresCpuMs();
    return {
      pitwall: Math.round((own.user + own.system) / 1000),
      simulator: sim0 === null || sim1 === null ? null : sim1 - sim0,
      postgres: pg0 === null || pg1 === null ? null : pg1 - pg0,
    };
  };
}
