import { readdirSync, readFileSync } from 'node:fs';

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
 * The postmaster of the server behind `pool`, when that server runs on this machine: the parent
 * of the connection's backend.
 */
export async function postmasterPid(pool: pg.Pool): Promise<number | null> {
  const backend = await backendPid(pool);
  const ppid = backend === null ? NaN : Number(statFields(backend)?.[1]);
  return Number.isInteger(ppid) && ppid > 1 ? ppid : null;
}

/**
 * Milliseconds of CPU used so far by one PostgreSQL server on this machine: its postmaster, every
 * child it runs now (backends, WAL writer, checkpointer, autovacuum), and every child it has
 * reaped (the postmaster's cutime and cstime), so the figure only grows while backends come and
 * go. Other servers on the machine (a test suite's, an embedded warehouse) are not counted. Null
 * when the postmaster is gone or not readable.
 */
export function postgresCpuMs(postmaster: number): number | null {
  // Children first: one reaped between the two reads is counted twice, never not at all.
  let children = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields === null || Number(fields[1]) !== postmaster) continue;
    children += Number(fields[11]) + Number(fields[12]);
  }
  const own = statFields(postmaster);
  if (own === null) return null;
  // Clock ticks, 100 per second (see processCpuMs): utime, stime, cutime, cstime.
  return (Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]) + children) * 10;
}

/** CPU time of the three parties to a sync, over one step. */
export interface CpuSplit {
  pitwall: number;
  simulator: number | null;
  postgres: number | null;
}

/**
 * Starts counting the CPU of this process, the simulator process and the PostgreSQL server whose
 * postmaster is `postmaster` (null: a server on another machine, not counted).
 */
export function cpuSplit(simulatorPid: number, postmaster: number | null): () => CpuSplit {
  const own0 = process.cpuUsage();
  const sim0 = processCpuMs(simulatorPid);
  const pg0 = postmaster === null ? null : postgresCpuMs(postmaster);
  return () => {
    const own = process.cpuUsage(own0);
    const sim1 = processCpuMs(simulatorPid);
    const pg1 = postmaster === null ? null : postgresCpuMs(postmaster);
    return {
      pitwall: Math.round((own.user + own.system) / 1000),
      simulator: sim0 === null || sim1 === null ? null : sim1 - sim0,
      postgres: pg0 === null || pg1 === null ? null : pg1 - pg0,
    };
  };
}
