import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { SUPERUSER } from './init-cluster.js';

/** The server's log, in its cluster's data directory: the embedded server's and an upgrade's side servers alike. */
const LOG_FILE = 'pitwall-server.log';

export const serverLogFile = (data: string): string => join(data, LOG_FILE);

/** The last `lines` lines of a log; empty when it cannot be read. */
export function logTail(path: string, lines = 20): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Why a server did not start, from the last FATAL or PANIC line of its log; undefined without one. */
export function startFailure(log: string): string | undefined {
  return log
    .split('\n')
    .reverse()
    .find((l) => / (FATAL|PANIC): /.test(l))
    ?.replace(/^.*? (FATAL|PANIC): +/, '');
}

/** The superuser's postgres:// URL on 127.0.0.1: for this process's own connections, never for printing. */
export const superuserUrl = (password: string, port: number): string =>
  `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
