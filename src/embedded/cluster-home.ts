import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

import { alive } from './data-dir-lock.js';
import { EmbeddedServerError } from './errors.js';
import { pgCtl, type PgTools } from './pg-tools.js';
import { blockingDirectory, type ServerUser } from './server-user.js';

/** The server's data directory (PGDATA) inside a warehouse directory, or the link to it. */
export const POSTGRES_SUBDIR = 'postgres';
/** Root-owned and searchable by all; each cluster's own directory is its server user's alone. */
export const CLUSTERS_DIR = '/var/lib/pitwall/clusters';
/** In a cluster's home: the real path of the warehouse directory it belongs to. */
const BACK_REFERENCE = 'warehouse-dir';

/** Where a warehouse directory's cluster lives. */
export interface ClusterPlace {
  /** PGDATA, as the server's user reaches it (never through the link). */
  data: string;
  /** Set when the cluster was just placed outside the warehouse directory: the line that says so. */
  notice?: string;
}

/**
 * Where the cluster of warehouse directory `dir` lives. Normally in `dir/postgres`. When pitwall
 * runs as root and the server's user cannot pass through the directories above `dir` (/root is
 * mode 0700), the cluster lives in CLUSTERS_DIR/<hash of dir's real path>/postgres instead, and
 * `dir/postgres` is a symlink to it: the directory still says plainly where its data is, the
 * password, port and lock stay in it, and no directory the user did not name is opened to other
 * users. The cluster's home names `dir` back, so that a cluster whose directory is gone can be
 * found and removed (sweepOrphanClusters).
 */
export function clusterPlace(dir: string, user: ServerUser | null, clustersDir = CLUSTERS_DIR): ClusterPlace {
  const link = join(dir, POSTGRES_SUBDIR);
  const linked = linkTarget(link);
  if (linked) {
    // A home swept away while its directory still linked to it is made again: initdb follows.
    if (linked.startsWith(`${clustersDir}/`)) ensureHome(dirname(linked), dir);
    return { data: linked };
  }
  if (!user) return { data: link };
  const blocked = blockingDirectory(dir, user);
  if (!blocked) return { data: link };
  if (existsSync(link)) {
    throw new EmbeddedServerError(
      `the embedded PostgreSQL runs as user ${user.name} (it refuses to run as root) and cannot reach the cluster in ${link}: ${blocked.at} is mode ${blocked.mode.toString(8)}`,
      `move the warehouse directory outside ${blocked.at}, run pitwall as another user, or set DATABASE_URL`,
    );
  }
  const home = join(clustersDir, homeName(dir));
  const data = join(home, POSTGRES_SUBDIR);
  // The link first, then the home: a home never exists without the link naming it, so a
  // sweep running beside this never takes a new cluster for an orphan.
  symlinkSync(data, link);
  ensureHome(home, dir);
  return {
    data,
    notice: `the embedded PostgreSQL runs as ${user.name}, which cannot reach ${dir} (${blocked.at} is mode ${blocked.mode.toString(8)}); its data is kept in ${home} (linked from ${link})`,
  };
}

/** PGDATA of `dir` as it is now (the link's target, or `dir/postgres`), making nothing. */
export function currentClusterData(dir: string): string {
  const link = join(dir, POSTGRES_SUBDIR);
  return linkTarget(link) ?? link;
}

/**
 * Stops and removes the clusters in `clustersDir` whose warehouse directory no longer exists or
 * no longer links to them: what removing a warehouse directory (or a demo's) leaves behind.
 * Returns the homes removed.
 */
export async function sweepOrphanClusters(tools: PgTools, clustersDir = CLUSTERS_DIR): Promise<string[]> {
  let names: string[];
  try {
    names = readdirSync(clustersDir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const home = join(clustersDir, name);
    if (name.startsWith('.')) {
      // A home being made (see ensureHome) by a process that died before renaming it.
      const pid = Number(name.split('.')[2]);
      if (Number.isInteger(pid) && !alive(pid)) rmSync(home, { recursive: true, force: true });
      continue;
    }
    if (!orphaned(home)) continue;
    const data = join(home, POSTGRES_SUBDIR);
    if (existsSync(join(data, 'postmaster.pid'))) await pgCtl(tools, data, ['stop', '-m', 'fast', '-w', '-t', '60']).catch(() => undefined);
    // A server that would not stop keeps its files: the next sweep tries again.
    if (serverAlive(data)) continue;
    rmSync(home, { recursive: true, force: true });
    removed.push(home);
  }
  return removed;
}

function orphaned(home: string): boolean {
  let dir: string;
  try {
    dir = readFileSync(join(home, BACK_REFERENCE), 'utf8').trim();
  } catch {
    return true;
  }
  return linkTarget(join(dir, POSTGRES_SUBDIR)) !== join(home, POSTGRES_SUBDIR);
}

function serverAlive(data: string): boolean {
  try {
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 && alive(pid);
  } catch {
    return false;
  }
}

/** The absolute target of `path` when it is a symlink; null when it is anything else or nothing. */
function linkTarget(path: string): string | null {
  try {
    if (!lstatSync(path).isSymbolicLink()) return null;
  } catch {
    return null;
  }
  return resolve(dirname(path), readlinkSync(path));
}

/** A short name for a warehouse directory, the same for every path that leads to it. */
function homeName(dir: string): string {
  return createHash('sha256').update(realpathSync(dir)).digest('hex').slice(0, 16);
}

/** The home and its back-reference, made under a dot name and renamed: never seen half-written. */
function ensureHome(home: string, dir: string): void {
  if (existsSync(join(home, BACK_REFERENCE))) return;
  const clustersDir = dirname(home);
  mkdirSync(clustersDir, { recursive: true, mode: 0o755 });
  const scratch = join(clustersDir, `.${homeName(dir)}.${process.pid}`);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { mode: 0o755 });
  writeFileSync(join(scratch, BACK_REFERENCE), `${realpathSync(dir)}\n`);
  try {
    renameSync(scratch, home);
  } catch (err) {
    rmSync(scratch, { recursive: true, force: true });
    if (!existsSync(join(home, BACK_REFERENCE))) throw err;
  }
}
