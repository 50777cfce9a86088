import pg from 'pg';

import { withTransaction } from '../db/transaction.js';
import { EXIT, PitwallError } from '../errors.js';

/** The schemas an analyst's role may read whole. */
export const READABLE_SCHEMAS = ['mrp', 'analytics'] as const;

/**
 * The tables of pitwall's own schema an analyst's role may read: its runs and its scopes' state
 * (what analytics.source_freshness sums up), the sources and the shapes seen. Not the ones that
 * keep what the upstream sent (rejects, responses, field_errors): those are payloads, not
 * operations. With USAGE on the schema, a BI tool's inspector (SQLAlchemy's, Superset's) can list
 * and describe every schema the role sees, instead of failing on "permission denied for schema".
 */
export const READABLE_OPERATIONS = ['sync_runs', 'sync_state', 'sources', 'shape_paths'] as const;

/** The role cannot be made a read-only reader: it does not exist, or it is a superuser. */
export class RoleError extends PitwallError {
  override readonly name = 'RoleError';
  // The role named on the command line is the wrong one, as a bad argument is.
  readonly code = 'role';
  readonly exitStatus = EXIT.usage;
  readonly expected = true;
}

/**
 * The statements that leave `role` with SELECT on every table and view of mrp and analytics,
 * now and later, and on READABLE_OPERATIONS, and nothing else on pitwall's schemas: earlier
 * grants of anything more (writes, CREATE, other pitwall tables) are revoked, so running it again
 * on a role that was given too much brings it back to read-only.
 */
export function readOnlyGrants(role: string): string[] {
  const r = pg.escapeIdentifier(role);
  const readable = READABLE_SCHEMAS.join(', ');
  const operations = READABLE_OPERATIONS.map((t) => `pitwall.${t}`).join(', ');
  return [
    `REVOKE ALL ON ALL TABLES IN SCHEMA mrp, analytics, pitwall FROM ${r}`,
    `REVOKE ALL ON ALL SEQUENCES IN SCHEMA mrp, analytics, pitwall FROM ${r}`,
    `REVOKE ALL ON SCHEMA mrp, analytics, pitwall FROM ${r}`,
    `GRANT USAGE ON SCHEMA ${readable}, pitwall TO ${r}`,
    `GRANT SELECT ON ALL TABLES IN SCHEMA ${readable} TO ${r}`,
    `GRANT SELECT ON ${operations} TO ${r}`,
    // Tables and views that later migrations create, when the role running them runs this too.
    `ALTER DEFAULT PRIVILEGES IN SCHEMA ${readable} GRANT SELECT ON TABLES TO ${r}`,
  ];
}

/**
 * Makes `role` a read-only reader of the warehouse, in one transaction. The role must exist
 * (creating it, with its password, is the DBA's call) and must not be a superuser, which no
 * grant or revoke can restrict.
 */
export async function grantReadOnly(pool: pg.Pool, role: string): Promise<void> {
  await withTransaction(pool, async (client) => {
    const { rows } = await client.query<{ rolsuper: boolean }>('SELECT rolsuper FROM pg_roles WHERE rolname = $1', [role]);
    const found = rows[0];
    if (!found) throw new RoleError(`role ${role} does not exist; create it first, e.g. CREATE ROLE ${pg.escapeIdentifier(role)} LOGIN PASSWORD '...'`);
    if (found.rolsuper) throw new RoleError(`role ${role} is a superuser: privileges cannot make it read-only`);
    for (const statement of readOnlyGrants(role)) await client.query(statement);
  });
}
