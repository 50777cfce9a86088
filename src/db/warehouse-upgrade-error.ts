/**
 * `pitwall upgrade-warehouse` could not upgrade the embedded warehouse: what went wrong and what
 * to do, one line. Whatever the step, the old cluster is left as it was (see
 * src/db/upgrade-warehouse.ts), which the message need not repeat. The original error is `cause`.
 */
export class WarehouseUpgradeError extends Error {
  override readonly name = 'WarehouseUpgradeError';
  readonly warehouse: string;
  readonly problem: string;
  readonly remedy: string;

  constructor(details: { warehouse: string; problem: string; remedy: string }, options: { cause?: unknown } = {}) {
    super(`cannot upgrade the warehouse at ${details.warehouse}: ${details.problem}; ${details.remedy}`, { cause: options.cause });
    this.warehouse = details.warehouse;
    this.problem = details.problem;
    this.remedy = details.remedy;
  }
}
