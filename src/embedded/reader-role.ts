import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import pg from 'pg';

import { grantReadOnly } from '../analytics/grant-readonly.js';

/** The role psql and BI tools log in as on the embedded warehouse. */
export const READER_ROLE = 'pitwall_reader';
export const READER_PASSWORD_FILE = 'reader-password';

/**
 * Makes sure the embedded warehouse has its read-only login role, with the password kept in
 * `dir` (mode 0600, made on first use), and SELECT on mrp and analytics only. Run on every
 * serve-sql, so a deleted password file or a role given more rights is put right.
 */
export async function ensureReaderRole(pool: pg.Pool, dir: string): Promise<{ role: string; passwordFile: string }> {
  const passwordFile = join(dir, READER_PASSWORD_FILE);
  if (!existsSync(passwordFile)) writeFileSync(passwordFile, `${randomBytes(18).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  const password = readFileSync(passwordFile, 'utf8').trim();
  const role = pg.escapeIdentifier(READER_ROLE);
  const { rowCount } = await pool.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [READER_ROLE]);
  // Utility statements take no parameters; escapeLiteral quotes the password safely.
  await pool.query(`${rowCount ? 'ALTER' : 'CREATE'} ROLE ${role} LOGIN NOSUPERUSER PASSWORD ${pg.escapeLiteral(password)}`);
  await grantReadOnly(pool, READER_ROLE);
  return { role: READER_ROLE, passwordFile };
}
