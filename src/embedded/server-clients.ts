import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { alive } from './data-dir-lock.js';

const CLIENTS_DIR = 'clients';

/**
 * The pitwall processes using an embedded warehouse's server, one file per process named by its
 * pid, holding what the process is and when it started (/proc/<pid>/stat's start time, where
 * there is a /proc). The last one to leave stops the server. A process that died (kill -9)
 * leaves a file whose pid is gone, or whose pid now belongs to a process that started at another
 * time: either way it no longer counts, and the next process to look removes it. Read and
 * written only under the directory's lock.
 */
export function registerClient(dir: string, purpose: string): void {
  mkdirSync(join(dir, CLIENTS_DIR), { recursive: true });
  const entry: ClientEntry = { purpose, startTime: processStartTime(process.pid) };
  writeFileSync(join(dir, CLIENTS_DIR, String(process.pid)), `${JSON.stringify(entry)}\n`);
}

export function unregisterClient(dir: string): void {
  rmSync(join(dir, CLIENTS_DIR, String(process.pid)), { force: true });
}

/** Other live pitwall processes on this directory; files of dead ones are removed on the way. */
export function otherLiveClients(dir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(join(dir, CLIENTS_DIR));
  } catch {
    return [];
  }
  const live: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    if (sameProcess(pid, readEntry(join(dir, CLIENTS_DIR, name)))) live.push(pid);
    else rmSync(join(dir, CLIENTS_DIR, name), { force: true });
  }
  return live;
}

interface ClientEntry {
  purpose: string;
  /** Clock ticks after boot at which the process started; null where /proc is not there to say. */
  startTime: string | null;
}

/** An entry as written; files of pitwall versions that wrote only the purpose read as having no start time. */
function readEntry(path: string): ClientEntry | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = JSON.parse(text) as Partial<ClientEntry>;
    return { purpose: String(parsed.purpose ?? ''), startTime: typeof parsed.startTime === 'string' ? parsed.startTime : null };
  } catch {
    return { purpose: text.trim(), startTime: null };
  }
}

/** Whether `pid` is still the process that wrote `entry`: alive, and not a later process given the same pid. */
export function sameProcess(pid: number, entry: ClientEntry | null): boolean {
  if (!alive(pid)) return false;
  if (!entry?.startTime) return true;
  const now = processStartTime(pid);
  return now === null || now === entry.startTime;
}

/**
 * Field 22 of /proc/<pid>/stat: when the process started, in clock ticks after boot. A pid is
 * reused only by a process started later, so pid and start time together name one process.
 * The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
 */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}
