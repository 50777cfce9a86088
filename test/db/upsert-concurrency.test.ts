import { describe, expect, it } from 'vitest';

import { upsertRows } from '../../src/db/load/upsert.js';
import { drivers } from '../../src/db/schema/mrp.js';
import { withTransaction } from '../../src/db/transaction.js';
import { useDatabase } from '../helpers/fixture.js';

const N = 20_000;
const driversFrom = (ids: number[], city: string) => ids.map((driver_id) => ({ driver_id, city, raw: { city } }));

describe('concurrent loads of overlapping rows', () => {
  const db = useDatabase();

  it('do not deadlock, whatever order each batch arrives in', async () => {
    const ids = Array.from({ length: N }, (_, i) => i + 1);
    // Both transactions reach upsertRows together, so their multi-chunk statements interleave:
    // unsorted, one would lock ascending and the other descending and each would wait on the other.
    let arrived = 0;
    let release!: () => void;
    const barrier = new Promise<void>((r) => (release = r));
    const load = (batch: ReturnType<typeof driversFrom>) =>
      withTransaction(
        db.pool,
        async (client) => {
          await client.query('SELECT 1');
          if (++arrived === 2) release();
          await barrier;
          return upsertRows(client, drivers, batch, { runId: 1 });
        },
        { attempts: 1 },
      );
    const [a, b] = await Promise.all([load(driversFrom(ids, 'Ascending')), load(driversFrom([...ids].reverse(), 'Descending'))]);
    expect(a.inserted + b.inserted).toBe(N);
    expect(a.updated + b.updated).toBe(N);
    const { rows } = await db.pool.query('SELECT count(DISTINCT city)::int AS cities, count(*)::int AS n FROM mrp.drivers');
    expect(rows).toEqual([{ cities: 1, n: N }]);
  });
});
