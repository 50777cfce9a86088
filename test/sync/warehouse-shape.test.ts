import { beforeAll, describe, expect, it } from 'vitest';

import { BACKENDS } from '../helpers/db.js';
import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';

describe.each(BACKENDS)('the warehouse after a sync (%s)', (backend) => {
  const { db, sim } = useWarehouse(backend, { scale: 'small', seed: 3 });
  beforeAll(async () => {
    expect((await syncOnce(db, sim)).status).toBe('succeeded');
  });

  it('holds an event that counts toward two schedules once, linked to both', async () => {
    const { rows } = await db.pool.query(
      `SELECT event_id, count(*)::int AS schedules FROM mrp.schedule_events GROUP BY event_id HAVING count(*) > 1 LIMIT 1`,
    );
    expect(rows.length).toBe(1);
    const events = await db.pool.query('SELECT count(*)::int AS n FROM mrp.events WHERE event_id = $1', [rows[0].event_id]);
    expect(events.rows[0].n).toBe(1);
    expect(rows[0].schedules).toBe(2);
  });

  it('keeps car numbers as text: 00 is not 0', async () => {
    const { rows } = await db.pool.query(
      `SELECT count(*) FILTER (WHERE car_number = '00')::int AS double_zero,
              count(*) FILTER (WHERE car_number = '0')::int AS zero FROM mrp.results`,
    );
    expect(rows[0].double_zero).toBeGreaterThan(0);
    expect(rows[0].zero).toBeGreaterThan(0);
  });

  it('keeps accents and apostrophes in names intact', async () => {
    const { rows } = await db.pool.query(
      `SELECT first_name, last_name FROM mrp.drivers WHERE first_name || last_name ~ '[^\\x00-\\x7F]' OR last_name LIKE '%''%'`,
    );
    expect(rows.length).toBeGreaterThan(0);
    const truth = (await (await fetch(`${sim.url}/__simulator/truth?table=drivers`)).json()) as unknown;
    const truthRows = (Array.isArray(truth) ? truth : (truth as { drivers: unknown[] }).drivers) as Array<{ first_name: string; last_name: string }>;
    for (const r of rows) expect(truthRows).toContainEqual(expect.objectContaining(r));
  });

  it('keeps every item as received in raw, and parses US dates to timestamps', async () => {
    const { rows } = await db.pool.query(
      `SELECT event_date::text AS d, raw->>'EventDate' AS raw_date FROM mrp.events ORDER BY event_id LIMIT 5`,
    );
    for (const r of rows) {
      const [m, d, y] = (r.raw_date as string).split(' ')[0]!.split('/');
      expect(r.d.slice(0, 10)).toBe(`${y}-${m!.padStart(2, '0')}-${d!.padStart(2, '0')}`);
    }
  });
});
