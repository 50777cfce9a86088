
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { loadConfig } from '../../src/config.js';
import { openWarehouse } from '../../src/db/open-warehouse.js';
import { warehouseUnavailable, WarehouseUnavailableError } from '../../src/db/warehouse-unavailable.js';
import { createSilentLogger } from '../../src/log.js';
import { withDatabase } from '../helpers/db-url.js';
import { createLoginRole, type LoginRole } from '../helpers/login-role.js';
import { freePort } from '../helpers/ports.js';

/**
 * A warehouse that cannot be opened becomes one WarehouseUnavailableError naming the URL (its
 * password masked), what went wrong and what to do, decided by SQLSTATE or socket code.
 */

const PASSWORD = 'pw-3c9a';

let role: LoginRole;
let refused: LoginRole;
beforeAll(async () => {
  [role, refused] = await Promise.all([createLoginRole(inject('pgAdminUrl'), PASSWORD), createLoginRole(inject('pgAdminUrl'), PASSWORD, { login: false })]);
});
afterAll(async () => Promise.all([role?.drop(), refused?.drop()]));

/** The test server's URL as a role with a password the server accepts, `change` applied. */
function serverUrl(change: (u: URL) => void, as: () => LoginRole = () => role): string {
  const u = new URL(as().urlFor(inject('pgAdminUrl')));
  change(u);
  return u.toString();
}

async function openError(url: string): Promise<WarehouseUnavailableError> {
  const err = await openWarehouse(loadConfig({ DATABASE_URL: url }), createSilentLogger()).then(
    (w) => (void w.close(), new Error('opened')),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WarehouseUnavailableError);
  const e = err as WarehouseUnavailableError;
  expect(e.message).not.toContain(PASSWORD);
  expect(e.message).not.toMatch(/\n/);
  expect(e.cause).toBeInstanceOf(Error);
  return e;
}

describe('opening a PostgreSQL warehouse that cannot be reached', () => {
  it('names a database that does not exist and how to create it', async () => {
    const url = withDatabase(serverUrl(() => undefined), 'pitwall_not_created_yet');
    const e = await openError(url);
    const u = new URL(url);
    expect(e.warehouse).toBe(url.replace(`:${PASSWORD}@`, ':****@'));
    expect(e.problem).toBe('database "pitwall_not_created_yet" does not exist');
    expect(e.remedy).toContain(`createdb -h ${u.hostname} -p ${u.port || '5432'} -U ${u.username} pitwall_not_created_yet`);
  });

  it('names a closed port and says to start the server', async () => {
    const port = await freePort();
    const e = await openError(serverUrl((u) => ((u.hostname = '127.0.0.1'), (u.port = String(port)))));
    expect(e.problem).toBe(`nothing is listening at 127.0.0.1:${port}`);
    expect(e.remedy).toMatch(/start the PostgreSQL server/);
  });

  it('names a refused login', async () => {
    const e = await openError(serverUrl(() => undefined, () => refused));
    expect(e.problem).toMatch(/refused the login .*pitwall_role_\w+.*not permitted to log in/);
    expect(e.remedy).toMatch(/user name in DATABASE_URL/);
  });
});

describe('warehouseUnavailable', () => {
  // The test server trusts local connections, so it never refuses a password: the server's
  // error is built here with the SQLSTATE it sends (28P01), as node-postgres reports it.
  it('classifies a refused password by its SQLSTATE and masks it', () => {
    const serverError = Object.assign(new Error('password authentication failed for user "pitwall"'), { code: '28P01' });
    const e = warehouseUnavailable(`postgres://pitwall:${PASSWORD}@db.internal:6543/pw`, serverError);
    expect(e.message).toBe(
      'cannot open the warehouse at postgres://pitwall:****@db.internal:6543/pw: the server refused the password of user "pitwall"; check the password in DATABASE_URL',
    );
    expect(e.cause).toBe(serverError);
  });

  it.each([
    ['ENOTFOUND', /host name "db\.internal" does not resolve/],
    ['ETIMEDOUT', /no answer from db\.internal:6543/],
    ['57P03', /starting up/],
    ['53300', /no connection slot/],
  ])('classifies %s', (code, problem) => {
    const e = warehouseUnavailable('postgres://u@db.internal:6543/pw', Object.assign(new Error('x'), { code }));
    expect(e.problem).toMatch(problem);
  });

  it('reads the code inside an AggregateError, as a connect to localhost reports it', () => {
    const refused = (address: string) => Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED' });
    const e = warehouseUnavailable('postgres://u@localhost/pw', new AggregateError([refused('::1:5432'), refused('127.0.0.1:5432')]));
    expect(e.problem).toBe('nothing is listening at localhost:5432');
  });

  it('keeps the server message of an unforeseen failure', () => {
    const e = warehouseUnavailable('postgres://u@h/db', Object.assign(new Error('SSL off'), { code: '08P01' }));
    expect(e.problem).toBe('SSL off (08P01)');
    expect(e.remedy).toMatch(/check DATABASE_URL/);
  });
});
