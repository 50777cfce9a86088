import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { postgresBinaries } from '../../src/embedded/binaries.js';
import { initCluster } from '../../src/embedded/init-cluster.js';
import type { PgTools } from '../../src/embedded/pg-tools.js';
import { serverUser } from '../../src/embedded/server-user.js';
import { startSideServer } from '../../src/embedded/side-server.js';

export interface StatementServer {
  /** The superuser's URL, for createBenchDatabase. */
  url: string;
  stop(): Promise<void>;
}

/**
 * A throwaway PostgreSQL from the embedded warehouse's binaries with pg_stat_statements loaded,
 * for the sections that count the statements pitwall makes: a server's shared_preload_libraries
 * cannot be changed without a restart, and the machine's server is not the bench's to restart.
 * `maxConnections` is set high so that what is measured is how many pitwall opens, not a refusal.
 */
export async function startStatementServer(maxConnections = 500): Promise<StatementServer> {
  const user = serverUser();
  const tools: PgTools = { user, bin: postgresBinaries(user) };
  const dir = mkdtempSync(join(tmpdir(), 'pitwall-bench-statements-'));
  // The server's user (root runs it as postgres) must reach the data directory inside.
  if (user) chmodSync(dir, 0o711);
  const data = join(dir, 'postgres');
  const password = 'bench';
  try {
    await initCluster(tools, data, dir, password);
    const server = await startSideServer(tools, data, password, {
      shared_preload_libraries: 'pg_stat_statements',
      'pg_stat_statements.track': 'top',
      max_connections: String(maxConnections),
    });
    return {
      url: server.url,
      stop: async () => {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
