import { readFileSync } from 'node:fs';

import type pg from 'pg';

/** Milliseconds of CPU (user + system) a process has used, or null when /proc does not show it. */
export function processCpuMs(pid: number): number | null {
  // utime and stime (fields 14 and 15 of the line), in clock ticks: 100 per second on every
  // platform Node runs on.
  const fields = statFields(pid);
  return fields === null ? null : (Number(fields[11]) + Number(fields[12])) * 10;
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

/** A process's fields after its command name in /proc/<pid>/stat (state is [0], ppid [1]), or null. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * CPU used so far by each backend serving `pool`'s database, by pid; null when the server is not
 * on this machine. Only that database's: the server may serve others meanwhile (a test suite on
 * the same server), and its background processes (WAL writer, checkpointer, autovacuum) serve
 * every database alike, so neither is the sync's.
 */
async function databaseBackendsCpu(pool: pg.Pool): Promise<Map<number, number> | null> {
  const { rows } = await pool.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`);
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    const ms = processCpuMs(pid);
    if (ms !== null) cpu.set(pid, ms);
  }
  // This query's own backend is among them: none readable means the server is elsewhere.
  return cpu.size > 0 ? cpu : null;
}

/** CPU time of the three parties to a sync, over one step. */
export interface CpuSplit {
  pitwall: number;
  simulator: number | null;
  postgres: number | null;
}

/**
 * Starts counting the CPU of this process, the simulator process and the backends serving
 * `pool`'s database; the function it returns reads the three over the step. A backend that ends
 * during the step takes its part with it: the figure may fall short, never go below zero, and
 * the syncs keep their pool's connections throughout.
 */
export async function cpuSplit(simulatorPid: number, pool: pg.Pool): Promise<() => Promise<CpuSplit>> {
  const pg0 = await databaseBackendsCpu(pool);
  const own0 = process.cpuUsage();
  const sim0 = processCpuMs(simulatorPid);
  return async () => {
    const own = process.cpuUsage(own0);
    const sim1 = processCpuMs(simulatorPid);
    const pg1 = await databaseBackendsCpu(pool);
    let postgres: number | null = null;
    if (pg0 !== null && pg1 !== null) {
      postgres = 0;
      for (const [pid, ms] of pg1) postgres += ms - (pg0.get(pid) ?? 0);
    }
    return {
      pitwall: Math.round((own.user + own.system) / 1000),
      simulator: sim0 === null || sim1 === null ? null : sim1 - sim0,
      postgres,
    };
  };
}
