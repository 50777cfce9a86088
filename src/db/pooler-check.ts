import type { Config } from '../config.js';
import { EXIT, PitwallError } from '../errors.js';
import { maskUrl } from '../secrets.js';

import type { Warehouse } from './open-warehouse.js';
import { probePooling, type PoolingProbe } from './pooling-probe.js';
import { warehouseUnavailable } from './warehouse-unavailable.js';

/**
 * A setting names a connection pitwall cannot work through: a pooler that shares server sessions
 * between clients (PgBouncer in transaction or statement mode, or one like it), where a session
 * advisory lock or a named prepared statement does not stay with the connection that made it, or
 * a lock session on another database than the warehouse's. A bad setting: exit 2, one line.
 */
export class PoolingModeError extends PitwallError {
  override readonly name = 'PoolingModeError';
  readonly code = 'pooling-mode';
  readonly exitStatus = EXIT.usage;
  readonly expected = true;

  /** The setting to change: DATABASE_URL or PITWALL_LOCK_DATABASE_URL. */
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(message);
  }
}

const DOC = 'docs/warehouse.md#poolers';
const SESSION_LEVEL = 'PostgreSQL itself or a session-mode pool';
const TRACKING = 'PgBouncer 1.21 or later with max_prepared_statements set';
const LOCKS = 'session advisory locks would not hold there';

/** One line: which setting reaches what, what would go wrong there, and what to do (`change`: the setting to change). */
function refusal(setting: string, url: string, probe: PoolingProbe, trouble: string, remedy: string, change = setting): PoolingModeError {
  return new PoolingModeError(change, `${setting} (${maskUrl(url)}) reaches a ${probe.pooling}-pooling PgBouncer (or similar): ${trouble}; ${remedy} (${DOC})`);
}

/** What else than locks a pool that shares server sessions breaks, or null when nothing else. */
function poolBreaks(pool: PoolingProbe): string | null {
  if (pool.pooling === 'statement') return "pitwall's transactions would be refused";
  return pool.preparedKept === false ? "pitwall's named prepared statements would fail" : null;
}

/** The probe of `url`; a connection that cannot be made fails as a warehouse that cannot be opened. */
async function probe(url: string, setting: string): Promise<PoolingProbe> {
  try {
    return await probePooling(url);
  } catch (err) {
    throw warehouseUnavailable(url, err, setting);
  }
}

/**
 * Refuses, before a worker, sync or rebuild starts, the connections it cannot work through (the
 * embedded warehouse needs no check: pitwall runs that server itself). Throws a PoolingModeError
 * naming the setting to change and what to point it at.
 * - The lock session's (`lockDatabaseUrl`, else `databaseUrl`) must keep a server session of its
 *   own: its session advisory locks say which process owns which source and runs which job, and
 *   under transaction pooling they would stay on a server session other clients then use.
 * - The pool's (`databaseUrl`) must keep pitwall's transactions and its named prepared
 *   statements (src/db/prepared.ts). Under PgBouncer's transaction pooling before 1.21, or with
 *   max_prepared_statements = 0, a sync fails at its first loads with `prepared statement
 *   "pitwall_..." already exists` (42P05) or `does not exist` (26000): seen with 1.18.
 * - The lock session must reach the warehouse's own database: every process's locks and the
 *   runs' heartbeats are there.
 */
export async function assertPoolingFits(databaseUrl: string, lockDatabaseUrl?: string): Promise<void> {
  const pool = await probe(databaseUrl, 'DATABASE_URL');
  const breaks = poolBreaks(pool);
  const tracked = pool.pooling === 'transaction' ? `, or set PITWALL_LOCK_DATABASE_URL to one of those and use ${TRACKING}` : '';
  if (lockDatabaseUrl === undefined) {
    if (pool.pooling === 'session') return;
    if (breaks) throw refusal('DATABASE_URL', databaseUrl, pool, `${LOCKS}, and ${breaks}`, `point DATABASE_URL at ${SESSION_LEVEL}${tracked}`);
    throw refusal('DATABASE_URL', databaseUrl, pool, LOCKS, `set PITWALL_LOCK_DATABASE_URL to ${SESSION_LEVEL}`, 'PITWALL_LOCK_DATABASE_URL');
  }
  const locks = await probe(lockDatabaseUrl, 'PITWALL_LOCK_DATABASE_URL');
  if (locks.pooling !== 'session') {
    throw refusal('PITWALL_LOCK_DATABASE_URL', lockDatabaseUrl, locks, LOCKS, `point PITWALL_LOCK_DATABASE_URL at ${SESSION_LEVEL}`);
  }
  const [a, b] = [locks.database, pool.database];
  if (a.name !== b.name || a.serverStarted !== b.serverStarted) {
    const where = a.name !== b.name ? `database "${a.name}", not DATABASE_URL's "${b.name}"` : "another server than DATABASE_URL's";
    throw new PoolingModeError(
      'PITWALL_LOCK_DATABASE_URL',
      `PITWALL_LOCK_DATABASE_URL (${maskUrl(lockDatabaseUrl)}) reaches ${where}: the lock session must reach the warehouse's own database, where every process takes its locks; point it there (${DOC})`,
    );
  }
  if (breaks) {
    const or = pool.pooling === 'transaction' ? `, or use ${TRACKING}` : '';
    throw refusal('DATABASE_URL', databaseUrl, pool, `${breaks} there`, `point DATABASE_URL at ${SESSION_LEVEL}${or}`);
  }
}

/**
 * assertPoolingFits for a command whose processes coordinate through session advisory locks
 * (`worker`, `sync`, `rebuild`), on the warehouse it opened, which is closed when refused. The
 * embedded warehouse is a server pitwall runs itself, reached directly.
 */
export async function refuseSharedSessions(warehouse: Warehouse, config: Pick<Config, 'lockDatabaseUrl'>): Promise<void> {
  if (warehouse.kind !== 'postgres') return;
  try {
    await assertPoolingFits(warehouse.url, config.lockDatabaseUrl);
  } catch (err) {
    await warehouse.close();
    throw err;
  }
}
