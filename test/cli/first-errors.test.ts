
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { EXIT } from '../../src/commands/context.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';
import { KEY_REFUSED_MESSAGE } from '../../src/sync/key-refusal.js';
import { runCli } from '../helpers/cli.js';
import { withDatabase } from '../helpers/db-url.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { createLoginRole, type LoginRole } from '../helpers/login-role.js';
import { freePort } from '../helpers/ports.js';

/**
 * A newcomer's first mistakes, as a real `pitwall` process shows them: a wrong API key, a
 * warehouse that cannot be reached. Each is one line on stderr that names the cause and what to
 * do, with no stack trace (the stack is there at --log-level debug), and never the secrets.
 */

const PASSWORD = 'pw7';
const STACK_LINE = /^\s+at /m;

let db: TestDatabase;
let sim: RunningSimulator;
let role: LoginRole;
let refused: LoginRole;
beforeAll(async () => {
  [db, sim, role, refused] = await Promise.all([
    createTestDatabase(),
    startSimulator({ scale: 'tiny', seed: 3 }),
    createLoginRole(inject('pgAdminUrl'), PASSWORD),
    createLoginRole(inject('pgAdminUrl'), PASSWORD, { login: false }),
  ]);
});
afterAll(async () => {
  await sim?.close();
  await db?.drop();
  await Promise.all([role?.drop(), refused?.drop()]);
});

/** The test database's URL as a role with a password the server accepts, `change` applied. */
function urlWith(change: (u: URL) => void, as: LoginRole = role): string {
  const u = new URL(as.urlFor(db.url));
  change(u);
  return u.toString();
}

const env = (extra: Record<string, string>) => ({ MRP_API_BASE_URL: sim.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0', ...extra });
const lines = (text: string) => text.split('\n').filter((l) => l !== '');

describe('a warehouse that cannot be reached', () => {
  it.each([
    ['a database that does not exist', () => withDatabase(urlWith(() => undefined), 'pitwall_first_run'), /database "pitwall_first_run" does not exist; create it \(createdb .* pitwall_first_run\)/],
    ['a role the server refuses', () => urlWith(() => undefined, refused), /refused the login .*not permitted to log in.*check the user name/],
  ])('%s: one line with the masked URL, the cause and the remedy, exit 1', async (_what, url, says) => {
    const r = await runCli(['sync'], env({ DATABASE_URL: url() }));
    expect(r.code).toBe(EXIT.failed);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/^pitwall: cannot open the warehouse at postgres:\/\/[^:]+:\*\*\*\*@/);
    expect(r.stderr).toMatch(says);
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.stdout + r.stderr).not.toContain(`:${PASSWORD}@`);
  });

  it('a closed port: says nothing listens there and to start the server; the stack only at debug', async () => {
    const port = await freePort();
    const url = urlWith((u) => ((u.hostname = '127.0.0.1'), (u.port = String(port))));
    const plain = await runCli(['status'], env({ DATABASE_URL: url }));
    expect(plain.code).toBe(EXIT.failed);
    expect(lines(plain.stderr)).toEqual([
      `pitwall: cannot open the warehouse at postgres://${new URL(url).username}:****@127.0.0.1:${port}/${new URL(url).pathname.slice(1)}: ` +
        `nothing is listening at 127.0.0.1:${port}; start the PostgreSQL server, or fix the host and port in DATABASE_URL`,
    ]);
    const debug = await runCli(['status', '--log-level', 'debug'], env({ DATABASE_URL: url }));
    expect(debug.stderr).toMatch(STACK_LINE);
    expect(debug.stderr).toContain('ECONNREFUSED');
    expect(debug.stderr).not.toContain(`:${PASSWORD}@`);
  });

  it('with a one-letter key, the error text is left whole', async () => {
    const r = await runCli(['sync'], env({ MRP_API_KEY: 'x', DATABASE_URL: withDatabase(db.url, 'pitwall_next_index') }));
    expect(r.stderr).toContain('database "pitwall_next_index" does not exist');
    expect(r.stderr).not.toContain('[redacted]');
  });
});

describe('a wrong API key', () => {
  const WRONG = 'not-my-key-0042';

  it('ends the sync with one line naming MRP_API_KEY (not its value), exit 4', async () => {
    const r = await runCli(['sync'], env({ DATABASE_URL: db.url, MRP_API_KEY: WRONG, PITWALL_LOG_LEVEL: 'silent' }));
    expect(r.code).toBe(EXIT.keyRefused);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/^pitwall: .*refused every request.*MRP_API_KEY is likely wrong/);
    expect(r.stdout).toMatch(/failed/);
    expect(r.stdout + r.stderr).not.toContain(WRONG);
  });

  it('ends with that line after the logs at the default level, with no stack', async () => {
    const r = await runCli(['sync', '--json'], env({ DATABASE_URL: db.url, MRP_API_KEY: WRONG }));
    expect(r.code).toBe(EXIT.keyRefused);
    expect(lines(r.stderr).at(-1)).toMatch(/^pitwall: .*MRP_API_KEY/);
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'failed', keyRefused: true });
  });

  it('says the refusal once at the default log level, not in the log, the summary and the last line', async () => {
    const r = await runCli(['sync'], env({ DATABASE_URL: db.url, MRP_API_KEY: WRONG }));
    expect(r.code).toBe(EXIT.keyRefused);
    expect((r.stdout + r.stderr).split(KEY_REFUSED_MESSAGE)).toHaveLength(2);
    expect(lines(r.stderr).at(-1)).toBe(`pitwall: ${KEY_REFUSED_MESSAGE}`);
    // No warning per refused root before it: the one line says it for them all.
    expect(r.stderr).not.toContain('upstream answered RequestValid 0');
  });

  it('is not reported for a key the upstream accepts', async () => {
    const r = await runCli(['sync'], env({ DATABASE_URL: db.url, PITWALL_LOG_LEVEL: 'silent' }));
    expect(r.code).toBe(EXIT.ok);
    expect(r.stderr).not.toContain('MRP_API_KEY');
  });
});
