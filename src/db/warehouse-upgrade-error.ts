import { WarehouseUnavailableError } from './warehouse-unavailable.js';

/**
 * `pitwall upgrade-warehouse` could not upgrade the embedded warehouse: what went wrong and what
 * to do, one line, printed as a warehouse that cannot be opened is. Whatever the step, the old
 * cluster is left as it was (see src/db/upgrade-warehouse.ts), which the message need not repeat.
 */
export class WarehouseUpgradeError extends WarehouseUnavailableError {
  override readonly name = 'WarehouseUpgradeError';
  override readonly code = 'warehouse-upgrade';

  constructor(details: { warehouse: string; problem: string; remedy: string }, options: ConstructorParameters<typeof WarehouseUnavailableError>[1] = {}) {
    super(details, options, 'upgrade');
  }
}
