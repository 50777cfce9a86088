import { describe, expect, it } from 'vitest';

import { createPool } from '../../src/db/pool.js';
import { useDatabase } from '../helpers/fixture.js';

describe('a pitwall pool', () => {
  const db = useDatabase();

  it('survives the backend of a checked-out client dying while nobody listens on that client: its next query fails, nothing is thrown', async () => {
    const pool = createPool(db.url, { max: 2 });
    try {
      const client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // The FATAL the backend sends arrives with no query in flight: an 'error' event on a client
      // nobody here listens to. Unheard, it would be an uncaught exception, which fails this file.
      await db.pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      for (let i = 0; i < 50; i++) {
        const alive = await db.pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [rows[0]!.pid]);
        if (alive.rowCount === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      await expect(client.query('SELECT 1')).rejects.toThrow(/not queryable|terminat/);
      client.release(new Error('backend terminated'));
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });
});
