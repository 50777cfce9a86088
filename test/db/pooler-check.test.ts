import pg from 'pg';
import { describe, expect, it } from 'vitest';

import { assertPoolingFits, PoolingModeError } from '../../src/db/pooler-check.js';
import { probePooling } from '../../src/db/pooling-probe.js';
import { withDatabase } from '../helpers/db-url.js';
import { useDatabase } from '../helpers/fixture.js';
import { usePgBouncer } from '../helpers/pgbouncer.js';

const PASSWORD = 'hunter2-pooler-secret';
const withPassword = (url: string) => Object.assign(new URL(url), { password: PASSWORD }).toString();

async function refusal(check: Promise<void>): Promise<PoolingModeError> {
  const err = await check.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(PoolingModeError);
  return err as PoolingModeError;
}

describe('how a connection keeps its server session (a real PgBouncer)', () => {
  const db = useDatabase();
  const transaction = usePgBouncer('transaction');
  const session = usePgBouncer('session');
  const statement = usePgBouncer('statement');

  it('finds PostgreSQL itself and a session-mode PgBouncer keeping one per connection', async () => {
    expect(await probePooling(db.url)).toMatchObject({ pooling: 'session', preparedKept: undefined });
    expect(await probePooling(session.through(db.url))).toMatchObject({ pooling: 'session', preparedKept: undefined });
  });

  it('finds transaction pooling, where a named statement is gone on the next server session', async () => {
    expect(await probePooling(transaction.through(db.url))).toMatchObject({ pooling: 'transaction', preparedKept: false });
  });

  it('finds statement pooling', async () => {
    expect((await probePooling(statement.through(db.url))).pooling).toBe('statement');
  });

  it('finds transaction pooling while other clients keep every server session of the pool busy', async () => {
    const busy = new pg.Pool({ connectionString: transaction.through(db.url), max: 40 });
    let going = true;
    const clients = Array.from({ length: 40 }, async () => {
      while (going) await busy.query('SELECT pg_sleep(0.002)');
    });
    try {
      for (let i = 0; i < 5; i += 1) expect((await probePooling(transaction.through(db.url))).pooling).toBe('transaction');
    } finally {
      going = false;
      await Promise.all(clients);
      await busy.end();
    }
  });

  it('sends a lock session through transaction pooling to PITWALL_LOCK_DATABASE_URL, its password masked', async () => {
    const err = await refusal(assertPoolingFits(withPassword(transaction.through(db.url))));
    expect(err.exitStatus).toBe(2);
    expect(err.message).toMatch(/^DATABASE_URL \(postgres:\/\/postgres:\*\*\*\*@127\.0\.0\.1:\d+\/\w+\) reaches a transaction-pooling PgBouncer \(or similar\): session advisory locks would not hold there/);
    expect(err.message).toContain('set PITWALL_LOCK_DATABASE_URL to one of those');
    expect(err.message).not.toContain(PASSWORD);
  });

  it('refuses a pool that loses prepared statements even with the locks elsewhere, and a lock URL pooled the same way', async () => {
    const pool = await refusal(assertPoolingFits(transaction.through(db.url), db.url));
    expect(pool.setting).toBe('DATABASE_URL');
    expect(pool.message).toContain("pitwall's named prepared statements would fail there; point DATABASE_URL at PostgreSQL itself or a session-mode pool, or use PgBouncer 1.21 or later with max_prepared_statements set");
    const locks = await refusal(assertPoolingFits(db.url, withPassword(transaction.through(db.url))));
    expect(locks.setting).toBe('PITWALL_LOCK_DATABASE_URL');
    expect(locks.message).toMatch(/^PITWALL_LOCK_DATABASE_URL \(.*:\*\*\*\*@.*\) reaches a transaction-pooling PgBouncer \(or similar\): session advisory locks would not hold there; point PITWALL_LOCK_DATABASE_URL at PostgreSQL itself or a session-mode pool/);
  });

  it('takes a session-mode pool with its locks on PostgreSQL itself, and refuses them on another database', async () => {
    await expect(assertPoolingFits(session.through(db.url), db.url)).resolves.toBeUndefined();
    const err = await refusal(assertPoolingFits(db.url, withDatabase(db.url, 'postgres')));
    expect(err.message).toContain(`reaches database "postgres", not DATABASE_URL's "${new URL(db.url).pathname.slice(1)}"`);
  });
});
