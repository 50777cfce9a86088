import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { EmbeddedServerError } from './errors.js';

/** The command that moves a warehouse made by the previous major version to this one. */
const UPGRADE_COMMAND = 'pitwall upgrade-warehouse';

/**
 * The major version of PostgreSQL that made the data directory `data`, from its `PG_VERSION`
 * file (initdb writes it, and a server refuses a directory whose version is not its own); null
 * when there is no cluster there.
 */
export function clusterMajor(data: string): number | null {
  let text: string;
  try {
    text = readFileSync(join(data, 'PG_VERSION'), 'utf8');
  } catch {
    return null;
  }
  const major = Number(text.trim());
  return Number.isInteger(major) && major > 0 ? major : null;
}

/** Where an upgrade keeps the old cluster and builds the new one: siblings of PGDATA, so that each move is a rename. */
export interface UpgradePaths {
  /** PGDATA (never the link to it). */
  data: string;
  /** The old cluster once the new one has taken its place, kept until the user removes it. */
  kept: string;
  /** The new cluster while it is built; holds UPGRADE_MARKER once complete and checked. */
  building: string;
  from: number;
  to: number;
}

/** In a built cluster, written last: what it was made from and when. */
export const UPGRADE_MARKER = 'pitwall-upgraded-from';

export function upgradePaths(data: string, from: number, to: number): UpgradePaths {
  return { data, kept: `${data}.pg${from}`, building: `${data}.pg${to}.new`, from, to };
}

/**
 * Why a server of major version `runs` must not open the cluster in `data`, or null when it may
 * (the same version, or no cluster yet). A newer server cannot read an older data directory and
 * PostgreSQL would refuse it in a log line; the user needs the command that moves it instead.
 * A data directory missing while the old one is kept beside it is an upgrade interrupted between
 * its two renames: making a fresh cluster there would hide the data, so that is refused too.
 */
export function clusterRefusal(data: string, runs: number, previous: number): EmbeddedServerError | null {
  const made = clusterMajor(data);
  const keep = ' (it keeps the old directory)';
  if (made === null) {
    const paths = upgradePaths(data, previous, runs);
    if (!existsSync(paths.kept) && !existsSync(join(paths.building, UPGRADE_MARKER))) return null;
    return new EmbeddedServerError(
      `an upgrade of it from PostgreSQL ${previous} to ${runs} was interrupted (the old cluster is in ${paths.kept})`,
      `run \`${UPGRADE_COMMAND}\` to finish it${keep}`,
    );
  }
  if (made === runs) return null;
  if (made === previous) {
    return new EmbeddedServerError(`it was made by PostgreSQL ${made} and this pitwall runs ${runs}`, `run \`${UPGRADE_COMMAND}\`${keep}`);
  }
  return made > runs
    ? new EmbeddedServerError(`it was made by PostgreSQL ${made} and this pitwall runs ${runs}`, 'use the pitwall release that made it, or a later one')
    : new EmbeddedServerError(
        `it was made by PostgreSQL ${made} and this pitwall runs ${runs}, which upgrades only from ${previous}`,
        'set PITWALL_DATA_DIR to a new directory and sync it from the upstream',
      );
}
