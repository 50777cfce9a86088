import { EXIT, PitwallError } from '../errors.js';
import { maskUrl } from '../secrets.js';

/**
 * SQLSTATEs after which running the whole transaction again can succeed: the conflict or the
 * outage was transient. Anything else (a constraint violation, a syntax error, bad data) would
 * fail the same way again.
 */
export const RETRYABLE_SQLSTATES = [
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '57P01', // admin_shutdown (also pg_terminate_backend)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, in recovery)
  '53300', // too_many_connections
  '55P03', // lock_not_available
] as const;

/** Class 08, connection_exception: every code in it means the connection, not the statement, failed. */
export const RETRYABLE_SQLSTATE_CLASS = '08';

/** Node socket error codes for a connection that dropped or could not be made. */
export const RETRYABLE_NETWORK_CODES = [
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
] as const;

const retryableCodes: ReadonlySet<string> = new Set<string>([...RETRYABLE_SQLSTATES, ...RETRYABLE_NETWORK_CODES]);
const SQLSTATE = /^[0-9A-Z]{5}$/;

export type DbErrorClass = 'retryable' | 'fatal';

function codeOf(err: unknown): string | undefined {
  // pitwall's own codes name its errors, not what a server or a socket reported.
  if (err instanceof PitwallError) return undefined;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The SQLSTATE a server error carries; node's own error codes (ECONNRESET) are not SQLSTATEs. */
export function sqlstateOf(err: unknown): string | undefined {
  const code = codeOf(err);
  return code !== undefined && SQLSTATE.test(code) ? code : undefined;
}

/**
 * The one place a message is read: node-postgres reports a socket that closed under a client as
 * a plain Error('Connection terminated unexpectedly') (or 'Connection terminated', or pg-pool's
 * 'Connection terminated due to connection timeout'), with no code and no other property to tell
 * it apart (pg/lib/client.js, the connection's 'end' handler). withTransaction does not rely on
 * this: it watches its client's 'error' and 'end' events instead. This covers callers that use
 * the pool directly.
 */
function isPgConnectionTerminated(err: unknown): boolean {
  return err instanceof Error && codeOf(err) === undefined && err.message.startsWith('Connection terminated');
}

function isRetryable(err: unknown, depth: number): boolean {
  if (err === null || typeof err !== 'object' || depth > 5) return false;
  const code = codeOf(err);
  if (code !== undefined && (retryableCodes.has(code) || (SQLSTATE.test(code) && code.startsWith(RETRYABLE_SQLSTATE_CLASS)))) return true;
  if (err instanceof DatabaseError) return err.retryable;
  if (isPgConnectionTerminated(err)) return true;
  // Wrappers keep the real failure as `cause`; a failed connect to "localhost" tries ::1 and
  // 127.0.0.1 and reports both inside an AggregateError.
  if (err instanceof AggregateError && err.errors.some((e) => isRetryable(e, depth + 1))) return true;
  return 'cause' in err && isRetryable(err.cause, depth + 1);
}

/** Whether running the transaction again might succeed, decided by SQLSTATE or socket error code. */
export function classifyDbError(err: unknown): DbErrorClass {
  return isRetryable(err, 0) ? 'retryable' : 'fatal';
}

/** Every URL in `text` with its password masked; server messages can quote a connection string. */
function maskUrls(text: string): string {
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, (url) => maskUrl(url));
}

/** A database failure, classified once. The original error stays available as `cause`. */
export class DatabaseError extends PitwallError {
  override readonly name = 'DatabaseError';
  readonly code: string = 'database';
  readonly exitStatus = EXIT.failed;
  readonly expected = false;
  readonly sqlstate: string | undefined;
  readonly retryable: boolean;

  constructor(message: string, options: { cause?: unknown; sqlstate?: string | undefined; retryable: boolean }) {
    super(maskUrls(message), { cause: options.cause });
    this.sqlstate = options.sqlstate;
    this.retryable = options.retryable;
  }
}

/** `err` as a DatabaseError: itself if it already is one, otherwise wrapped and classified. */
export function coerceDbError(err: unknown): DatabaseError {
  if (err instanceof DatabaseError) return err;
  const sqlstate = sqlstateOf(err);
  const code = codeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  const prefix = sqlstate ? `database error ${sqlstate}` : code ? `database error ${code}` : 'database error';
  return new DatabaseError(`${prefix}: ${message}`, { cause: err, sqlstate, retryable: classifyDbError(err) === 'retryable' });
}
