import { DatabaseError } from '../db/errors.js';

/**
 * Postgres data exceptions (22xxx), integrity violations (23xxx) and program limits exceeded
 * (54xxx, e.g. a value too large for an index): bad data in one scope, not a dead database.
 */
export const isScopeDataError = (err: unknown): boolean => err instanceof DatabaseError && /^(22|23|54)/.test(err.sqlstate ?? '');
