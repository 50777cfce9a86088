import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What a test file may leave running, read from /proc: this process's TCP sockets and child
 * processes, and PostgreSQL servers under given directories. An embedded server is started by
 * pg_ctl in a session of its own, so it is nobody's child: it is found by its data directory.
 */
export interface Resources {
  /** Socket inodes this process holds, each with a description. */
  sockets: Map<string, string>;
  /** Live (not zombie) child processes, by pid, with their command line. */
  children: Map<number, string>;
  /** PostgreSQL servers (postmasters) by pid, with their data directory. */
  servers: Map<number, string>;
}

export interface LeakScope {
  /** Directories this file made; a server whose data directory is under one is this file's. */
  dirs: readonly string[];
  /** Ports PostgreSQL listens on, to name a connection to one as a pool or client left open. */
  databasePorts: ReadonlySet<number>;
}

export function readResources(scope: LeakScope): Resources {
  return { sockets: ownSockets(scope.databasePorts), children: childProcesses(), servers: serversUnder(scope.dirs) };
}

/** What is running now that was not at `before`, one line each; empty when nothing leaked. */
export function leaksSince(before: Resources, scope: LeakScope): string[] {
  const now = readResources(scope);
  const added = <K>(a: Map<K, string>, b: Map<K, string>) => [...b].filter(([k]) => !a.has(k));
  return [
    ...added(before.children, now.children).map(([pid, cmd]) => `child process ${pid} still running: ${cmd}`),
    ...added(before.servers, now.servers).map(([pid, dir]) => `PostgreSQL server ${pid} still running on ${dir}`),
    ...added(before.sockets, now.sockets).map(([, what]) => what),
  ];
}

/**
 * leaksSince, asked again for up to `settleMs` while anything shows: a socket closed a moment ago
 * leaves the fd table on the next turn of the event loop, a killed child when it is reaped.
 */
export async function settledLeaks(before: Resources, scope: LeakScope, settleMs = 3_000): Promise<string[]> {
  const deadline = performance.now() + settleMs;
  for (;;) {
    const leaks = leaksSince(before, scope);
    if (leaks.length === 0 || performance.now() > deadline) return leaks;
    await sleep(100);
  }
}

export function readOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // The process ended between listing and reading.
    return fallback;
  }
}

export const pids = (): number[] => readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map(Number);
const commandLine = (pid: number): string[] => readOr(`/proc/${pid}/cmdline`, '').split('\0').filter(Boolean);

function childProcesses(): Map<number, string> {
  const children = new Map<number, string>();
  for (const pid of pids()) {
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
    const stat = readOr(`/proc/${pid}/stat`, '');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(ppid) === process.pid && state !== 'Z') children.set(pid, commandLine(pid).join(' '));
  }
  return children;
}

/** Every PostgreSQL server (postmaster) on the machine, by pid, with its data directory. */
export function postmasters(): Map<number, string> {
  const servers = new Map<number, string>();
  for (const pid of pids()) {
    const argv = commandLine(pid);
    // The postmaster keeps its argv; its backends rename themselves "postgres: ...".
    if (!argv[0]?.endsWith('/postgres') && argv[0] !== 'postgres') continue;
    const data = argv[argv.indexOf('-D') + 1];
    if (argv.includes('-D') && data) servers.set(pid, data);
  }
  return servers;
}

/** Whether `path` is `dir` or inside it. */
export const under = (path: string, dir: string): boolean => path === dir || path.startsWith(`${dir}/`);

function serversUnder(dirs: readonly string[]): Map<number, string> {
  if (dirs.length === 0) return new Map();
  return new Map([...postmasters()].filter(([, data]) => dirs.some((d) => under(data, d))));
}

interface TcpEntry {
  local: string;
  remote: string;
  remotePort: number;
  listening: boolean;
}

function ownSockets(databasePorts: ReadonlySet<number>): Map<string, string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    let link = '';
    try {
      link = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    const m = /^socket:\[(\d+)\]$/.exec(link);
    if (m) inodes.add(m[1]!);
  }
  const sockets = new Map<string, string>();
  for (const [inode, entry] of tcpTable()) {
    if (!inodes.has(inode)) continue;
    const what = entry.listening
      ? `a server still listening on ${entry.local} (a simulator, proxy or endpoint not closed)`
      : databasePorts.has(entry.remotePort)
        ? `a PostgreSQL connection still open, ${entry.local} -> ${entry.remote} (a pool or client not ended)`
        : `a TCP connection still open, ${entry.local} -> ${entry.remote}`;
    sockets.set(inode, what);
  }
  return sockets;
}

/** The local addresses of this namespace's sockets listening on `port`, as the kernel has them (e.g. `0.0.0.0:9464`). */
export function listeningOn(port: number): string[] {
  return [...tcpTable().values()].filter((e) => e.listening && e.local.endsWith(`:${port}`)).map((e) => e.local);
}

/** This network namespace's TCP sockets by inode (IPv4 and IPv6). */
function tcpTable(): Map<string, TcpEntry> {
  const table = new Map<string, TcpEntry>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readOr(file, '').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const remote = address(f[2]!);
      table.set(f[9]!, { local: address(f[1]!).text, remote: remote.text, remotePort: remote.port, listening: f[3] === '0A' });
    }
  }
  return table;
}

/** "0100007F:1F90" (little-endian IPv4 words, hex port) as "127.0.0.1:8080"; IPv6 kept in hex. */
function address(hex: string): { text: string; port: number } {
  const [ip = '', portHex = '0'] = hex.split(':');
  const port = parseInt(portHex, 16);
  const host = ip.length === 8 ? (ip.match(/../g) ?? []).reverse().map((b) => parseInt(b, 16)).join('.') : ipv6(ip);
  return { text: `${host}:${port}`, port };
}

function ipv6(hex: string): string {
  // Each 32-bit word is little-endian; a v4-mapped address reads as its IPv4 form.
  const words = (hex.match(/.{8}/g) ?? []).map((w) => (w.match(/../g) ?? []).reverse().join(''));
  const joined = words.join('');
  if (joined.startsWith('00000000000000000000FFFF')) return (joined.slice(24).match(/../g) ?? []).map((b) => parseInt(b, 16)).join('.');
  return `[${(joined.match(/.{4}/g) ?? []).map((g) => g.replace(/^0+(?=.)/, '').toLowerCase()).join(':')}]`;
}
