import { chownSync, existsSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { clusterMajor, UPGRADE_MARKER, type UpgradePaths } from './cluster-version.js';
import { EmbeddedServerError } from './errors.js';
import type { ServerUser } from './server-user.js';

/**
 * What an upgrade finds when it starts, after an earlier attempt may have been interrupted
 * anywhere (Ctrl-C, kill -9, a lost machine):
 * - `build`: the old cluster is in place (any half-built new one has been removed): build the new one;
 * - `upgraded`: the data directory already holds this version (`kept` says whether the old one is beside it);
 * - `finished`: the new cluster was complete and the old one moved aside, but the process died
 *   before moving the new one in: done now.
 */
export type UpgradeStart = { state: 'build' } | { state: 'upgraded'; kept: boolean } | { state: 'finished' };

/**
 * Puts the directories back into a state an upgrade can start from. Only the two renames of the
 * swap can leave the data directory missing; between them the old cluster is `kept` and the new
 * one is complete (marked): finishing is the only move that loses nothing. A data directory
 * missing with the old cluster kept and no complete new one (a user who deleted the new one to
 * go back) has the old one moved back. Servers must be stopped first.
 */
export function settleUpgrade(paths: UpgradePaths): UpgradeStart {
  const { data, kept, building } = paths;
  if (clusterMajor(data) === null) {
    if (existsSync(kept) && existsSync(join(building, UPGRADE_MARKER))) {
      renameSync(building, data);
      return { state: 'finished' };
    }
    if (!existsSync(kept) || clusterMajor(kept) !== paths.from) {
      throw new EmbeddedServerError(`there is no PostgreSQL cluster in ${data} to upgrade`, 'check PITWALL_DATA_DIR');
    }
    // An empty directory left where the data was is removed; anything else in the way fails the rename.
    if (existsSync(data)) rmdirSync(data);
    renameSync(kept, data);
  }
  const made = clusterMajor(data);
  if (made === paths.to) return { state: 'upgraded', kept: existsSync(kept) };
  if (made !== paths.from) {
    throw new EmbeddedServerError(
      `the cluster in ${data} was made by PostgreSQL ${made}; this pitwall upgrades only from ${paths.from} to ${paths.to}`,
      'set PITWALL_DATA_DIR to a new directory and sync it from the upstream',
    );
  }
  if (existsSync(kept)) {
    throw new EmbeddedServerError(
      `${kept} already exists (the old cluster of an earlier upgrade?) and would be replaced`,
      `move it elsewhere or delete it, then run again`,
    );
  }
  // A new cluster an earlier attempt left half-built (or complete, but the old one may have been
  // written since, by the previous release): built again from the old one as it is now.
  removeBuilding(paths);
  return { state: 'build' };
}

/** Removes the new cluster being built, and initdb's scratch directory beside it. */
export function removeBuilding(paths: UpgradePaths): void {
  rmSync(`${paths.building}.init`, { recursive: true, force: true });
  rmSync(paths.building, { recursive: true, force: true });
}

/**
 * Swaps the complete, checked new cluster in: marked first, so that a process dying between
 * the two renames leaves a state settleUpgrade finishes; then the old cluster is renamed aside
 * (kept) and the new one into its place. Both servers must be stopped.
 */
export function swapIn(paths: UpgradePaths, user: ServerUser | null, note: string): void {
  const marker = join(paths.building, UPGRADE_MARKER);
  writeFileSync(marker, `${note}\n`, { mode: 0o600 });
  if (user) chownSync(marker, user.uid, user.gid);
  renameSync(paths.data, paths.kept);
  renameSync(paths.building, paths.data);
}
