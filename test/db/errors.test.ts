import pg from 'pg';
import { describe, expect, it } from 'vitest';

import { classifyDbError, coerceDbError, DatabaseError, RETRYABLE_SQLSTATES } from '../../src/db/errors.js';
import { useDatabase } from '../helpers/fixture.js';

describe('classifyDbError on errors from a real server', () => {
  const db = useDatabase();
  const failure = (sql: string) => db.pool.query(sql).then(() => expect.fail(`${sql} succeeded`), (err: unknown) => err);
  const raise = (sqlstate: string) => failure(`DO $$ BEGIN RAISE EXCEPTION 'x' USING ERRCODE = '${sqlstate}'; END $$`);

  it('calls constraint violations, syntax errors and bad data fatal', async () => {
    await db.pool.query('CREATE TABLE u (id int PRIMARY KEY); INSERT INTO u VALUES (1)');
    const unique = await failure('INSERT INTO u VALUES (1)');
    expect(classifyDbError(unique)).toBe('fatal');
    expect(coerceDbError(unique)).toMatchObject({ sqlstate: '23505', retryable: false, cause: unique });
    expect(classifyDbError(await failure('SELEC 1'))).toBe('fatal');
    expect(classifyDbError(await failure("SELECT 'x'::int"))).toBe('fatal');
  });

  it('calls every listed SQLSTATE and the whole connection-exception class retryable', async () => {
    for (const sqlstate of [...RETRYABLE_SQLSTATES, '08000', '08006']) {
      const err = await raise(sqlstate);
      expect([sqlstate, classifyDbError(err)]).toEqual([sqlstate, 'retryable']);
    }
    expect(classifyDbError(await raise('42501'))).toBe('fatal');
  });

  it('calls a refused connection retryable and keeps the password out of the message', async () => {
    const client = new pg.Client({ connectionString: 'postgres://pitwall:s3cret@127.0.0.1:1/db' });
    const refused = await client.connect().then(() => expect.fail('connected to port 1'), (err: unknown) => err);
    expect(classifyDbError(refused)).toBe('retryable');
    const wrapped = coerceDbError(new Error('cannot reach postgres://pitwall:s3cret@db.internal:5432/x', { cause: refused }));
    expect(wrapped).toBeInstanceOf(DatabaseError);
    expect(wrapped.retryable).toBe(true);
    expect(wrapped.message).not.toContain('s3cret');
    expect(wrapped.message).toContain('postgres://pitwall:****@db.internal');
  });

  it('calls node-postgres "Connection terminated" errors, which carry no code, retryable', () => {
    expect(classifyDbError(new Error('Connection terminated unexpectedly'))).toBe('retryable');
    expect(classifyDbError(new Error('Connection timed out, terminated'))).toBe('fatal');
    expect(classifyDbError(new TypeError('not a database error'))).toBe('fatal');
    expect(classifyDbError(null)).toBe('fatal');
  });
});
