import { EXIT, PitwallError, type ExitStatus } from '../errors.js';

/**
 * The embedded server could not be created, reached or started: what went wrong and what to do,
 * for one line a person can act on (openWarehouse hands it on as a WarehouseUnavailableError).
 * `detail` keeps what the tools printed (the server log's last lines) for --log-level debug.
 * `exitStatus`: `usage` where a setting's value is the cause (a data directory that cannot be
 * written, a port in use), as for any bad value; otherwise `failed`.
 */
export class EmbeddedServerError extends PitwallError {
  override readonly name = 'EmbeddedServerError';
  readonly code = 'embedded-server';
  readonly exitStatus: ExitStatus;
  readonly expected = true;
  readonly problem: string;
  readonly remedy: string;
  readonly detail: string | undefined;

  constructor(problem: string, remedy: string, detail?: string, exitStatus: ExitStatus = EXIT.failed) {
    super(`${problem}; ${remedy}`);
    this.problem = problem;
    this.remedy = remedy;
    this.detail = detail;
    this.exitStatus = exitStatus;
  }
}
