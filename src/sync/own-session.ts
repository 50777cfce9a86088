import type pg from 'pg';

import { startBeat } from '../coordination/beat.js';
import { BEAT_MS } from '../coordination/lease.js';
import { LockSession } from '../coordination/lock-session.js';
import type { Logger } from '../log.js';

import { HeartbeatGroup } from './heartbeat.js';
import { tryRunLocks } from './sql/job-lock.js';
import type { RunCoordination } from './types.js';

/** A run's coordination in a process that is not a worker, with close() for when the run has ended. */
export type OwnSession = Omit<RunCoordination, 'pace'> & { close(): Promise<void> };

/**
 * The lock session of a process that runs a job without being a worker (`pitwall sync`,
 * `rebuild`): the same job locks and the same heartbeat as a worker's runs, on the same kind of
 * session, with a beat of its own, so a manual run holds its job exactly as a worker's does and
 * stops when its lease runs out.
 */
export async function openOwnSession(pool: pg.Pool, logger: Logger, options: { beatMs?: number | undefined; lockDatabaseUrl?: string | undefined } = {}): Promise<OwnSession> {
  const session = await LockSession.open(pool, 'sync', { connectionString: options.lockDatabaseUrl });
  const heartbeats = new HeartbeatGroup(logger);
  // With no run going there is no heartbeat to write, but the lease still needs its answered beat.
  const beat = startBeat(
    () => (heartbeats.size > 0 ? heartbeats.write(session) : session.query('SELECT 1').then(() => undefined)),
    // Never slower than BEAT_MS: the lease (LEASE_MS) counts on its answers.
    Math.min(options.beatMs ?? BEAT_MS, BEAT_MS),
    (err) => logger.debug({ err: err instanceof Error ? err.message : String(err) }, 'beat failed'),
  );
  return {
    tryJobLocks: (source, jobs, job) => tryRunLocks(session, source, jobs, job),
    startHeartbeat: (run) => heartbeats.start(run),
    close: async () => {
      await beat.stop();
      await session.close();
    },
  };
}
