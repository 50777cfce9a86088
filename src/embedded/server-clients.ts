import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { alive } from './data-dir-lock.js';

const CLIENTS_DIR = 'clients';

/**
 * The pitwall processes using an embedded warehouse's server, one file per process named by its
 * pid. The last one to leave stops the server; a process that died (kill -9) leaves a file whose
 * pid is gone, which no longer counts. Read and written only under the directory's lock.
 */
export function registerClient(dir: string, purpose: string): void {
  mkdirSync(join(dir, CLIENTS_DIR), { recursive: true });
  writeFileSync(join(dir, CLIENTS_DIR, String(process.pid)), `${purpose}\n`);
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
    if (alive(pid)) live.push(pid);
    else rmSync(join(dir, CLIENTS_DIR, name), { force: true });
  }
  return live;
}
