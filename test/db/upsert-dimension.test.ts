import { beforeAll, describe, expect, it } from 'vitest';

import { upsertRows } from '../../src/db/load/upsert.js';
import { drivers } from '../../src/db/schema/mrp.js';
import { useDatabase, usePoolClient } from '../helpers/fixture.js';

const driver = (raw: Record<string, unknown>, first = 'Zoë') => ({
  driver_id: 42, first_name: first, last_name: "O'Neil", suffix: null, city: 'Ames', state: 'IA', country: 'USA', raw,
});

describe('a dimension row loaded with compareRaw: false', () => {
  const db = useDatabase();
  const client = usePoolClient(db);
  beforeAll(async () => {
    await upsertRows(client, drivers, [driver({ DriverId: 42 })], { runId: 1, compareRaw: false });
  });

  it('is not rewritten when only its raw rendering differs', async () => {
    const counts = await upsertRows(client, drivers, [driver({ DriverId: '42' })], { runId: 2, compareRaw: false });
    expect(counts).toEqual({ inserted: 0, updated: 0, unchanged: 1, seenAgain: 0 });
    const { rows } = await client.query(`SELECT raw, _run_id FROM mrp.drivers WHERE driver_id = 42`);
    expect(rows[0]).toEqual({ raw: { DriverId: 42 }, _run_id: '1' });
  });

  it('is updated, raw included, when a typed column changes', async () => {
    const counts = await upsertRows(client, drivers, [driver({ DriverId: '42', DriverFName: 'Zoe' }, 'Zoe')], { runId: 3, compareRaw: false });
    expect(counts).toEqual({ inserted: 0, updated: 1, unchanged: 0, seenAgain: 0 });
    const { rows } = await client.query(`SELECT first_name, raw FROM mrp.drivers WHERE driver_id = 42`);
    expect(rows[0]).toEqual({ first_name: 'Zoe', raw: { DriverId: '42', DriverFName: 'Zoe' } });
  });

  it('is rewritten for a raw-only difference when raw is compared (the default)', async () => {
    const counts = await upsertRows(client, drivers, [driver({ DriverId: 42, DriverFName: 'Zoe' }, 'Zoe')], { runId: 4 });
    expect(counts.updated).toBe(1);
  });
});
