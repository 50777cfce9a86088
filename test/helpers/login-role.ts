import { randomBytes } from 'node:crypto';

import pg from 'pg';

import { createPool } from '../../src/db/pool.js';

export interface LoginRole {
  /** `url` with this role and its password as the user. */
  urlFor(url: string): string;
  drop(): Promise<void>;
}

/**
 * A role with a known password on the tests' server, for tests that need a password in
 * DATABASE_URL (to see it masked) that the server also accepts: a server with password
 * authentication (the embedded one the tests may start) checks it, a trust server ignores it.
 * `login: false` makes a role whose password is right but which may not log in, so that a refused
 * login reads the same on either kind of server.
 */
export async function createLoginRole(adminUrl: string, password: string, options: { login?: boolean } = {}): Promise<LoginRole> {
  const name = `pitwall_role_${randomBytes(4).toString('hex')}`;
  const admin = createPool(adminUrl, { max: 1 });
  try {
    // Utility statements take no parameters: the name is ours, the password quoted as a literal.
    await admin.query(`CREATE ROLE ${name} ${options.login === false ? 'NOLOGIN' : 'LOGIN SUPERUSER'} PASSWORD ${pg.escapeLiteral(password)}`);
  } finally {
    await admin.end();
  }
  return {
    urlFor(url) {
      const u = new URL(url);
      u.username = name;
      u.password = password;
      return u.toString();
    },
    async drop() {
      const a = createPool(adminUrl, { max: 1 });
      try {
        await a.query(`DROP ROLE IF EXISTS ${name}`);
      } finally {
        await a.end();
      }
    },
  };
}
