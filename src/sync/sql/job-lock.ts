import type pg from 'pg';

/** First half of every pitwall advisory-lock key, so pitwall's locks never collide with others'. */
const LOCK_NAMESPACE = 730_511;

const JOB_LOCK_IDS: Record<string, number> = { full: 1, season: 2, live: 3 };

export interface JobLock {
  release(): Promise<void>;
}

/**
 * Takes the job's session-level advisory lock on a dedicated connection, or returns null when
 * another process (a worker on any machine, or a manual `pitwall sync`) holds it. The lock lives
 * as long as that connection: a process that dies releases it with its session.
 */
export async function tryJobLock(pool: pg.Pool, job: string): Promise<JobLock | null> {
  const id = JOB_LOCK_IDS[job];
  if (id === undefined) throw new Error(`no advisory lock id for job ${job}`);
  const client = await pool.connect();
  let released = false;
  try {
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [LOCK_NAMESPACE, id]);
    if (!rows[0]?.ok) {
      client.release();
      return null;
    }
  } catch (err) {
    client.release(err as Error);
    throw err;
  }
  return {
    release: async () => {
      if (released) return;
      released = true;
      try {
        await client.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_NAMESPACE, id]);
        client.release();
      } catch (err) {
        // The session is gone, and the lock with it; discard the connection.
        client.release(err as Error);
      }
    },
  };
}
