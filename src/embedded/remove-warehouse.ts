import { readdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';

import { EXIT } from '../errors.js';

import { postgresBinaries } from './binaries.js';
import { currentClusterData, relocatedHome, removeHome } from './cluster-home.js';
import { withDataDirLock } from './data-dir-lock.js';
import { EmbeddedServerError } from './errors.js';
import { otherLiveClients } from './server-clients.js';
import { serverUser } from './server-user.js';
import { stopServerOf } from './side-server.js';

/** What removing an embedded warehouse removes: its directory, and its cluster's home when that lives elsewhere. */
export interface WarehouseRemoval {
  dir: string;
  /** The cluster's home outside `dir` (under /var/lib/pitwall/clusters, as root), or null. */
  relocated: string | null;
}

/**
 * What `removeWarehouse(dir)` would remove; refused when `dir` holds no embedded warehouse, so
 * that a mistyped PITWALL_DATA_DIR never has some other directory removed.
 */
export function warehouseRemoval(dir: string): WarehouseRemoval {
  const at = resolve(dir);
  let names: string[];
  try {
    names = readdirSync(at);
  } catch {
    names = [];
  }
  if (!names.includes('password') && !names.includes('postgres')) {
    throw new EmbeddedServerError(`${at} holds no embedded warehouse`, 'check PITWALL_DATA_DIR', undefined, EXIT.usage);
  }
  return { dir: at, relocated: relocatedHome(at) };
}

/**
 * Removes an embedded warehouse: its server stopped, then its cluster's home outside the
 * directory (which the directory's removal alone would leave for the orphan sweep to take a
 * day later), then the directory. Under the directory's lock, and refused while another pitwall
 * process (a worker, serve-sql) uses the server.
 */
export async function removeWarehouse(dir: string): Promise<WarehouseRemoval> {
  const removal = warehouseRemoval(dir);
  await withDataDirLock(removal.dir, 'remove-warehouse', async () => {
    const users = otherLiveClients(removal.dir);
    if (users.length > 0) {
      throw new EmbeddedServerError(
        `the embedded warehouse in ${removal.dir} is in use by pitwall process${users.length === 1 ? '' : 'es'} ${users.join(', ')}`,
        `stop ${users.length === 1 ? 'it' : 'them'} (a worker, serve-sql, a sync) and run pitwall remove-warehouse again`,
      );
    }
    const user = serverUser();
    await stopServerOf({ user, bin: postgresBinaries(user) }, currentClusterData(removal.dir));
    if (removal.relocated) removeHome(removal.relocated);
    rmSync(removal.dir, { recursive: true, force: true });
  });
  return removal;
}
