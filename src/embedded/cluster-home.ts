import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

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
 * found, stopped and, after a grace period, removed (sweepOrphanClusters).
 */
export function clusterPlace(dir: string, user: ServerUser | null, clustersDir = CLUSTERS_DIR): ClusterPlace {
  const link = join(dir, POSTGRES_SUBDIR);
  const linked = linkTarget(link);
  if (linked) {
    if (linked.startsWith(`${clustersDir}/`)) adopt(dirname(linked), dir);
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
  const home = freeHome(clustersDir, dir);
  const data = join(home, POSTGRES_SUBDIR);
  // The link first, then the home: a home never exists without the link naming it, so a
  // sweep running beside this never takes a new cluster for an orphan.
  symlinkSync(data, link);
  try {
    ensureHome(home, dir);
  } catch (err) {
    rmSync(link, { force: true });
    throw new EmbeddedServerError(
      `the embedded PostgreSQL runs as user ${user.name} (it refuses to run as root), which cannot reach ${dir} (${blocked.at} is mode ${blocked.mode.toString(8)}), and its cluster cannot be kept in ${clustersDir} either: ${(err as Error).message}`,
      `set PITWALL_DATA_DIR to a directory outside ${blocked.at}, run pitwall as another user, or set DATABASE_URL`,
    );
  }
  return {
    data,
    notice: `the embedded PostgreSQL runs as ${user.name}, which cannot reach ${dir} (${blocked.at} is mode ${blocked.mode.toString(8)}); its data is kept in ${home} (linked from ${link}); pitwall remove-warehouse removes both`,
  };
}

/** PGDATA of `dir` as it is now (the link's target, or `dir/postgres`), making nothing. */
export function currentClusterData(dir: string): string {
  const link = join(dir, POSTGRES_SUBDIR);
  return linkTarget(link) ?? link;
}

/**
 * How long a cluster whose warehouse directory is gone or no longer links to it is kept before
 * its files are removed. A directory moved with `mv` looks exactly like a removed one until
 * its first open at the new path takes the cluster back (adopt); a user who opens another
 * warehouse first must not lose the moved one's data. A day covers a move and the next working
 * session; an orphan's server is stopped at once, so waiting costs only disk space.
 */
export const ORPHAN_GRACE_MS = 24 * 60 * 60 * 1000;
/** In a cluster's home: when a sweep first found it orphaned (ISO time). */
export const ORPHAN_MARK = 'orphaned-since';

export interface SweepOptions {
  clustersDir?: string;
  /** The time now, in ms since the epoch. */
  now?: number;
  /** Receives one line for each cluster marked orphaned or removed. */
  report?: (line: string) => void;
}

/**
 * Looks after the clusters in `clustersDir` whose warehouse directory no longer exists or no
 * longer links to them: what removing (or moving) a warehouse directory leaves behind. Such a
 * cluster's server is stopped at once and the cluster marked; its files are removed once it has
 * been orphaned for ORPHAN_GRACE_MS. A cluster linked again (its moved directory opened) loses
 * its mark. Returns the homes removed.
 */
export async function sweepOrphanClusters(tools: PgTools, options: SweepOptions = {}): Promise<string[]> {
  const { clustersDir = CLUSTERS_DIR, now = Date.now(), report = () => undefined } = options;
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
      // A home being made (see ensureHome), or being removed (below), by a process that died midway.
      const pid = Number(name.split('.')[2]);
      if (Number.isInteger(pid) && !alive(pid)) rmSync(home, { recursive: true, force: true });
      continue;
    }
    const owner = orphanedFrom(home);
    if (owner === null) {
      rmSync(join(home, ORPHAN_MARK), { force: true });
      continue;
    }
    const data = join(home, POSTGRES_SUBDIR);
    if (existsSync(join(data, 'postmaster.pid'))) await pgCtl(tools, data, ['stop', '-m', 'fast', '-w', '-t', '60']).catch(() => undefined);
    // A server that would not stop keeps its files: the next sweep tries again.
    if (serverAlive(data)) continue;
    const since = orphanedSince(home);
    if (since === null) {
      try {
        writeFileSync(join(home, ORPHAN_MARK), `${new Date(now).toISOString()}\n`);
      } catch {
        continue; // Removed meanwhile by another process's sweep.
      }
      report(
        `the embedded PostgreSQL cluster of ${owner} is orphaned (that directory is gone or no longer links to it): its server is stopped and its data, in ${data}, is removed after ${new Date(now + ORPHAN_GRACE_MS).toISOString()}; if the directory was moved, open it with pitwall before then to keep it`,
      );
      continue;
    }
    // Checked again just before removing: a moved directory may have taken it back meanwhile.
    if (now - since < ORPHAN_GRACE_MS || orphanedFrom(home) === null) continue;
    if (!removeHome(home)) continue; // Another process's sweep took it first.
    removed.push(home);
    report(`removed the embedded PostgreSQL cluster ${home} of ${owner}, orphaned since ${new Date(since).toISOString()}`);
  }
  return removed;
}

/**
 * Removes a cluster's home. Renamed out of the way first (a dot name, which a later sweep clears
 * if this process dies mid-way): removed in place, a concurrent sweep of another process could
 * write its mark into the half-removed home and leave it behind; renamed, that write fails
 * instead. False when it was gone already (another process took it first).
 */
export function removeHome(home: string): boolean {
  const doomed = join(dirname(home), `.${basename(home)}.${process.pid}.removing`);
  try {
    renameSync(home, doomed);
  } catch {
    return false;
  }
  rmSync(doomed, { recursive: true, force: true });
  return true;
}

/** The home in `clustersDir` of `dir`'s cluster when it lives there (linked); null when it is in `dir` itself. */
export function relocatedHome(dir: string, clustersDir = CLUSTERS_DIR): string | null {
  const linked = linkTarget(join(dir, POSTGRES_SUBDIR));
  return linked?.startsWith(`${clustersDir}/`) ? dirname(linked) : null;
}

/** When `home` was first found orphaned; null when it is not marked (or the mark is unreadable). */
function orphanedSince(home: string): number | null {
  try {
    const at = Date.parse(readFileSync(join(home, ORPHAN_MARK), 'utf8').trim());
    return Number.isNaN(at) ? null : at;
  } catch {
    return null;
  }
}

/** The warehouse directory an orphaned `home` belonged to (or a placeholder); null when `home` is not orphaned. */
function orphanedFrom(home: string): string | null {
  let dir: string;
  try {
    dir = readFileSync(join(home, BACK_REFERENCE), 'utf8').trim();
  } catch {
    return 'an unknown directory';
  }
  return linkTarget(join(dir, POSTGRES_SUBDIR)) === join(home, POSTGRES_SUBDIR) ? null : dir;
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

/**
 * A home for `dir`'s new cluster: named by its path's hash, with a suffix when that name is
 * taken: by a directory moved away from this path (see adopt), or by the cluster of a directory
 * deleted and made again at this path, which the sweep removes and which must not come back.
 */
function freeHome(clustersDir: string, dir: string): string {
  const base = join(clustersDir, homeName(dir));
  for (let n = 1; ; n++) {
    const home = n === 1 ? base : `${base}-${n}`;
    if (!existsSync(home)) return home;
  }
}

/** A short name for a warehouse directory, the same for every path that leads to it. */
function homeName(dir: string): string {
  return createHash('sha256').update(realpathSync(dir)).digest('hex').slice(0, 16);
}

/**
 * Makes the home of a linked cluster name `dir` again. A home swept away while its directory
 * still linked to it is made again (initdb follows). A directory moved (`mv`) keeps its link,
 * and its first open here points the back-reference at its new path, so that a later sweep does
 * not take the cluster for an orphan (a sweep that already did marked it, and the mark goes); a
 * copy of a directory whose original still links to the cluster leaves the back-reference with
 * the original.
 */
function adopt(home: string, dir: string): void {
  if (!existsSync(join(home, BACK_REFERENCE))) return ensureHome(home, dir);
  rmSync(join(home, ORPHAN_MARK), { force: true });
  const named = readFileSync(join(home, BACK_REFERENCE), 'utf8').trim();
  if (named === realpathSync(dir) || linkTarget(join(named, POSTGRES_SUBDIR)) === join(home, POSTGRES_SUBDIR)) return;
  writeFileSync(join(home, `${BACK_REFERENCE}.new`), `${realpathSync(dir)}\n`);
  renameSync(join(home, `${BACK_REFERENCE}.new`), join(home, BACK_REFERENCE));
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
