import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

import type pg from 'pg';

/** One look at the worker process, and at the server's sessions, at one moment. */
export interface Sample {
  /** Milliseconds since the soak started. */
  atMs: number;
  /** Which worker process (1 before the kill, 2 after). */
  life: number;
  pid: number;
  rssMb: number;
  fds: number;
  /** The worker's own sessions in pg_stat_activity (matched by their client ports). */
  dbConnections: number;
  /** Every client session on the server: the worker's, serve-sql's, the BI client's, the soak's. */
  serverSessions: number;
}

function rssMb(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/** The process's open descriptors, and the inodes of the sockets among them. */
function descriptors(pid: number): { fds: number; sockets: Set<string> } | null {
  try {
    const names = readdirSync(`/proc/${pid}/fd`);
    const sockets = new Set<string>();
    for (const name of names) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${name}`));
        if (m) sockets.add(m[1]!);
      } catch {
        // Closed between the listing and the look: it is not open any more.
      }
    }
    return { fds: names.length, sockets };
  } catch {
    return null;
  }
}

/**
 * The local ports of `pid`'s TCP connections to `remotePort`: /proc/net/tcp lists every socket of
 * the network namespace with its inode, and the process's descriptors say which are its own.
 * pg_stat_activity knows a session by its client port, not by the client's pid.
 */
function clientPorts(pid: number, sockets: Set<string>, remotePort: number): Set<number> {
  const ports = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || !sockets.has(f[9]!)) continue;
      const local = parseInt(f[1]!.split(':')[1]!, 16);
      const remote = parseInt(f[2]!.split(':')[1]!, 16);
      if (remote === remotePort) ports.add(local);
    }
  }
  return ports;
}

/** Samples the worker `pid` and the server (through `monitor`, a superuser pool on it). */
export async function sampleWorker(monitor: pg.Pool, serverPort: number, pid: number, life: number, atMs: number): Promise<Sample | null> {
  const rss = rssMb(pid);
  const fd = descriptors(pid);
  if (rss === null || fd === null) return null;
  const ports = clientPorts(pid, fd.sockets, serverPort);
  const { rows } = await monitor.query<{ client_port: number | null }>(
    `SELECT client_port FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
  );
  const dbConnections = rows.filter((r) => r.client_port !== null && ports.has(r.client_port)).length;
  return { atMs, life, pid, rssMb: rss, fds: fd.fds, dbConnections, serverSessions: rows.length };
}

export interface Growth {
  /** Highest value over the first and the last third of the life's samples after its warm-up. */
  early: number;
  late: number;
  /** late / early - 1; null when the life was too short after its warm-up to judge. */
  growth: number | null;
}

export type Measure = 'rssMb' | 'fds' | 'dbConnections';

/**
 * How one measure moved over one worker's life, after `warmupMs` from its first sample: the
 * highest value in the last third against the highest in the first third. Highs rather than
 * means, because the pool closes idle connections and the collector runs when it likes: what
 * a leak moves is the ceiling. Lives shorter than `minJudgedMs` after warm-up are not judged.
 */
export function growthOf(samples: readonly Sample[], life: number, measure: Measure, warmupMs: number, minJudgedMs: number): Growth {
  const own = samples.filter((s) => s.life === life);
  if (own.length === 0) return { early: 0, late: 0, growth: null };
  const after = own.filter((s) => s.atMs >= own[0]!.atMs + warmupMs);
  const span = after.length > 1 ? after.at(-1)!.atMs - after[0]!.atMs : 0;
  const third = span / 3;
  const high = (xs: readonly Sample[]) => Math.max(0, ...xs.map((s) => s[measure]));
  const early = high(after.filter((s) => s.atMs <= after[0]!.atMs + third));
  const late = high(after.filter((s) => s.atMs >= after.at(-1)!.atMs - third));
  if (span < minJudgedMs || early === 0) return { early, late, growth: null };
  return { early, late, growth: late / early - 1 };
}
