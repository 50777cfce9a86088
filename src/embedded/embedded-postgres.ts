import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

import { lockDataDir } from './data-dir-lock.js';

export interface EmbeddedPostgresOptions {
  /** The warehouse directory: PGlite's data in `pglite/`, the lock in `warehouse.lock`. */
  dir: string;
  /** What this process is, for the lock file and the message another process gets. */
  purpose: string;
  host?: string;
  /** 0 (the default) lets the system pick a free port. */
  port?: number;
  /**
   * Client connections accepted at once. They all share PGlite's one session (see
   * README.md): pglite-socket runs their messages one at a time and keeps an open
   * transaction's connection first in line, but settings, temporary tables, prepared statement
   * names and advisory locks are common to all of them. Default 4, though pitwall's own pool
   * uses one connection: a replacement connection can arrive before the server has noticed that
   * the one it replaces closed, and is then refused.
   */
  maxConnections?: number;
  /** Start from an empty warehouse: the data directory is removed once the lock is ours. */
  fresh?: boolean;
}

export interface EmbeddedPostgres {
  /** A postgres:// URL for any Postgres client (pg, psql, BI tools) while this process runs. */
  url: string;
  host: string;
  port: number;
  /** The absolute warehouse directory. */
  dir: string;
  /** Stops listening, closes PGlite (flushing it to disk) and releases the lock. Safe to call twice. */
  close(): Promise<void>;
}

/** Where PGlite keeps its Postgres data directory inside a warehouse directory. */
export const PGLITE_SUBDIR = 'pglite';

/**
 * PostgreSQL in this process: PGlite (Postgres compiled to WebAssembly) on a directory, served
 * over the Postgres wire protocol on a local TCP port by pglite-socket. Everything pitwall does
 * (node-postgres, binary array parameters, transactions, drizzle's migrator) then runs
 * unchanged, and psql or a BI tool can attach to the same port.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dir = resolve(options.dir);
  const lock = lockDataDir(dir, options.purpose);
  let db: PGlite | undefined;
  let server: PGLiteSocketServer | undefined;
  const shutdown = async () => {
    try {
      await server?.stop();
      if (db && !db.closed) await db.close();
    } finally {
      lock.release();
    }
  };
  try {
    const dataDir = join(dir, PGLITE_SUBDIR);
    if (options.fresh) rmSync(dataDir, { recursive: true, force: true });
    db = await PGlite.create({ dataDir });
    const host = options.host ?? '127.0.0.1';
    server = new PGLiteSocketServer({ db, host, port: options.port ?? 0, maxConnections: options.maxConnections ?? 4 });
    await server.start();
    const port = Number(server.getServerConn().split(':').pop());
    lock.setPort(port);
    let closed: Promise<void> | undefined;
    const urlHost = host.includes(':') ? `[${host}]` : host;
    return { url: `postgres://postgres@${urlHost}:${port}/postgres`, host, port, dir, close: () => (closed ??= shutdown()) };
  } catch (err) {
    await shutdown().catch(() => undefined);
    throw err;
  }
}
