import { EXIT, PitwallError } from '../errors.js';

/**
 * The embedded server could not be created, reached or started: what went wrong and what to do,
 * for one line a person can act on (openWarehouse hands it on as a WarehouseUnavailableError).
 * `detail` keeps what the tools printed (the server log's last lines) for --log-level debug.
 */
export class EmbeddedServerError extends PitwallError {
  override readonly name = 'EmbeddedServerError';
  readonly code = 'embedded-server';
  readonly exitStatus = EXIT.failed;
  readonly expected = true;
  readonly problem: string;
  readonly remedy: string;
  readonly detail: string | undefined;

  constructor(problem: string, remedy: string, detail?: string) {
    super(`${problem}; ${remedy}`);
    this.problem = problem;
    this.remedy = remedy;
    this.detail = detail;
  }
}
