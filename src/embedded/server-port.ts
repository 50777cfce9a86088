import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { EXIT } from '../errors.js';

import { EmbeddedServerError } from './errors.js';

const PORT_FILE = 'port';

/** The port a server should start on, and why that one: the message when it is taken says so. */
export interface PortChoice {
  port: number;
  /** `configured`: PITWALL_SQL_PORT; `remembered`: the port of the last start; `free`: any, this first time. */
  source: 'configured' | 'remembered' | 'free';
}

/**
 * PITWALL_SQL_PORT when set; else the port the server had last time, so that psql and a BI
 * tool's saved connection keep working across restarts; else, the first time, a free one. A
 * configured or remembered port that is taken is an error, never a silent move to another port
 * that would break those saved connections.
 */
export async function choosePort(dir: string, configured: number | undefined): Promise<PortChoice> {
  const remembered = rememberedPort(dir);
  const choice: PortChoice =
    configured !== undefined
      ? { port: configured, source: 'configured' }
      : remembered !== undefined
        ? { port: remembered, source: 'remembered' }
        : { port: await freePort(), source: 'free' };
  if (choice.source !== 'free' && !(await portFree(choice.port))) throw portTaken(dir, choice);
  return choice;
}

export function rememberPort(dir: string, port: number): void {
  writeFileSync(join(dir, PORT_FILE), `${port}\n`);
}

export function portTaken(dir: string, { port, source }: PortChoice): EmbeddedServerError {
  const why = source === 'remembered' ? ` (the port it had last time, kept in ${join(dir, PORT_FILE)})` : '';
  return new EmbeddedServerError(`the embedded warehouse's port ${port}${why} is in use by another program`, 'set PITWALL_SQL_PORT to a free port', undefined, EXIT.usage);
}

function rememberedPort(dir: string): number | undefined {
  try {
    const port = Number(readFileSync(join(dir, PORT_FILE), 'utf8').trim());
    return Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
  } catch {
    return undefined;
  }
}

/** A port free on 127.0.0.1 this moment, chosen by the system. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** Whether 127.0.0.1:`port` can be bound now; any failure but "in use" is left for the server to report. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolveFree(err.code !== 'EADDRINUSE'));
    server.listen(port, '127.0.0.1', () => server.close(() => resolveFree(true)));
  });
}
