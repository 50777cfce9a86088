import { EXIT, PitwallError, type ExitStatus } from '../errors.js';
import { maskUrl } from '../secrets.js';

/**
 * The warehouse could not be opened: a named target, what went wrong and what to do about it,
 * one line a person can act on. Generic over the warehouse: the PostgreSQL server at
 * DATABASE_URL (built by `warehouseUnavailable` below) or the embedded one (its start failures
 * can be wrapped the same way, naming its directory). The original error stays as `cause`; the
 * CLI prints it only at `--log-level debug`. It exits as `failed` unless told otherwise: a cause
 * that is a setting's bad value (an embedded warehouse's unwritable directory) exits as `usage`.
 */
export class WarehouseUnavailableError extends PitwallError {
  override readonly name: string = 'WarehouseUnavailableError';
  readonly code: string = 'warehouse-unavailable';
  readonly exitStatus: ExitStatus;
  readonly expected = true;
  /** What was being opened: a URL with its password masked, or the embedded warehouse's directory. */
  readonly warehouse: string;
  readonly problem: string;
  readonly remedy: string;

  /** `action`: what could not be done to it, `open` unless a subclass says otherwise. */
  constructor(
    details: { warehouse: string; problem: string; remedy: string },
    options: { cause?: unknown; exitStatus?: ExitStatus } = {},
    action = 'open',
  ) {
    super(`cannot ${action} the warehouse at ${details.warehouse}: ${details.problem}; ${details.remedy}`, { cause: options.cause });
    this.exitStatus = options.exitStatus ?? EXIT.failed;
    this.warehouse = details.warehouse;
    this.problem = details.problem;
    this.remedy = details.remedy;
  }
}

interface Target {
  host: string;
  port: string;
  user: string;
  database: string;
}

/** The parts of a connection URL a remedy names; pg's own defaults where the URL leaves one out. */
function targetOf(url: string): Target {
  try {
    const u = new URL(url);
    const user = decodeURIComponent(u.username) || 'postgres';
    return {
      host: decodeURIComponent(u.hostname) || 'localhost',
      port: u.port || '5432',
      user,
      database: decodeURIComponent(u.pathname.replace(/^\//, '')) || user,
    };
  } catch {
    return { host: 'localhost', port: '5432', user: 'postgres', database: 'postgres' };
  }
}

/**
 * The error code that says why a connection failed: the SQLSTATE the server sent, or the
 * socket's code. A connect to "localhost" tries ::1 and 127.0.0.1 and reports both inside an
 * AggregateError; wrappers keep the failure as `cause`.
 */
function connectCode(err: unknown, depth = 0): string | undefined {
  if (err === null || typeof err !== 'object' || depth > 5) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  if (err instanceof AggregateError) {
    for (const inner of err.errors) {
      const found = connectCode(inner, depth + 1);
      if (found) return found;
    }
  }
  return 'cause' in err ? connectCode(err.cause, depth + 1) : undefined;
}

/** Shell quoting for a name shown in a command to copy, only when it needs it. */
const shellWord = (word: string) => (/^[\w.@%+=:,/-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/**
 * A failed first connection to the PostgreSQL server at `url`, classified by SQLSTATE or socket
 * code (never by message text) into what went wrong and what to do; `setting` holds the URL.
 */
export function warehouseUnavailable(url: string, err: unknown, setting = 'DATABASE_URL'): WarehouseUnavailableError {
  const t = targetOf(url);
  const at = `${t.host}:${t.port}`;
  const code = connectCode(err);
  const serverSays = err instanceof Error ? err.message : String(err);
  const [problem, remedy] = ((): [string, string] => {
    switch (code) {
      case '3D000': // invalid_catalog_name
        return [
          `database "${t.database}" does not exist`,
          `create it (createdb -h ${shellWord(t.host)} -p ${t.port} -U ${shellWord(t.user)} ${shellWord(t.database)}), then run pitwall migrate`,
        ];
      case '28P01': // invalid_password
        return [`the server refused the password of user "${t.user}"`, `check the password in ${setting}`];
      case '28000': // invalid_authorization_specification: no such role, or no pg_hba.conf entry
        return [`the server refused the login (${serverSays})`, `check the user name in ${setting} and the server's pg_hba.conf`];
      case 'ECONNREFUSED':
        return [`nothing is listening at ${at}`, `start the PostgreSQL server, or fix the host and port in ${setting}`];
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return [`the host name "${t.host}" does not resolve`, `check the host in ${setting}`];
      case 'ETIMEDOUT':
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return [`no answer from ${at} (${code})`, 'check that the server is running and reachable from here (network, firewall)'];
      case '57P03': // cannot_connect_now
        return ['the server is starting up or shutting down', 'try again in a moment'];
      case '53300': // too_many_connections
        return ['the server has no connection slot left', "lower PITWALL_CONCURRENCY, or raise the server's max_connections"];
      default:
        return [code ? `${serverSays} (${code})` : serverSays, `check ${setting} and that the server is running`];
    }
  })();
  return new WarehouseUnavailableError({ warehouse: maskUrl(url), problem, remedy }, { cause: err });
}
