import type { WarehouseTableName } from '../db/schema/mrp.js';

import type { ShapeWarning } from './shape/vanished.js';
import type { RunTotals } from './sql/sync-runs.js';

export interface TableCounts {
  inserted: number;
  updated: number;
  /** Rows stored before the run, found identical: not written. */
  unchanged: number;
  /**
   * Rows met again in the same run, identical to what the run met first (a driver in every
   * result and lineup of theirs): not written, and not counted as unchanged (docs/sync.md).
   */
  seenAgain: number;
  deleted: number;
  rejected: number;
  /** Values that failed their field's type and were stored as NULL in rows that loaded. */
  fieldErrors: number;
  /** Items the upstream listed again under the same parent (same natural key): not loaded, kept in pitwall.rejects. */
  duplicates: number;
}

export interface ScopeCounts {
  /** Responses loaded (something may or may not have changed). */
  loaded: number;
  /** Responses identical to the last one for the scope: not reprocessed. */
  unchanged: number;
  /** RequestValid 0: recorded on the scope and retried next run. */
  invalid: number;
  /** Requests or responses that failed after retries. */
  failed: number;
  /** Skipped: set aside after failing the same way in runs before (pitwall.sync_state.set_aside_until). */
  setAside: number;
  /** Finished by the earlier parts of a continued run (docs/reliability.md): not asked for again. */
  carried: number;
}

/** Rows a run wrote (inserted, updated or marked deleted) across its tables; unchanged rows are not written. */
export function rowsWritten(tables: Readonly<Partial<Record<string, TableCounts>>>): number {
  let n = 0;
  for (const t of Object.values(tables)) if (t) n += t.inserted + t.updated + t.deleted;
  return n;
}

const zero = (): TableCounts => ({ inserted: 0, updated: 0, unchanged: 0, seenAgain: 0, deleted: 0, rejected: 0, fieldErrors: 0, duplicates: 0 });

/** Everything a run counts; mutated only by the run that owns it. */
export class RunCounters {
  readonly tables: Partial<Record<WarehouseTableName, TableCounts>> = {};
  readonly scopes: ScopeCounts = { loaded: 0, unchanged: 0, invalid: 0, failed: 0, setAside: 0, carried: 0 };
  requests = 0;
  retries = 0;
  /** Distinct unmodelled fields seen, per endpoint: set once, at the end of a run, from its ShapeTracker. */
  unknownFields: Partial<Record<string, number>> = {};
  /** Modelled fields this run found missing from every item (each reported once per change). */
  missingFields: ShapeWarning[] = [];
  repairedBodies = 0;
  /** Occurrences of the API key (or another secret) in response bodies, stored masked. */
  maskedValues = 0;

  table(name: WarehouseTableName): TableCounts {
    return (this.tables[name] ??= zero());
  }

  add(name: WarehouseTableName, counts: Partial<TableCounts>): void {
    const t = this.table(name);
    t.inserted += counts.inserted ?? 0;
    t.updated += counts.updated ?? 0;
    t.unchanged += counts.unchanged ?? 0;
    t.seenAgain += counts.seenAgain ?? 0;
    t.deleted += counts.deleted ?? 0;
    t.rejected += counts.rejected ?? 0;
    t.fieldErrors += counts.fieldErrors ?? 0;
    t.duplicates += counts.duplicates ?? 0;
  }

  /** Adds another counter's figures (a committed transaction's, or a finished sub-walk's). */
  merge(other: RunCounters): void {
    for (const [name, counts] of Object.entries(other.tables)) this.add(name as WarehouseTableName, counts);
    this.scopes.loaded += other.scopes.loaded;
    this.scopes.unchanged += other.scopes.unchanged;
    this.scopes.invalid += other.scopes.invalid;
    this.scopes.failed += other.scopes.failed;
    this.scopes.setAside += other.scopes.setAside;
    this.scopes.carried += other.scopes.carried;
    this.requests += other.requests;
    this.retries += other.retries;
    this.repairedBodies += other.repairedBodies;
    this.maskedValues += other.maskedValues;
  }

  totals(): RunTotals {
    const sum = zero();
    for (const t of Object.values(this.tables)) {
      sum.inserted += t.inserted;
      sum.updated += t.updated;
      sum.unchanged += t.unchanged;
      sum.seenAgain += t.seenAgain;
      sum.deleted += t.deleted;
      sum.rejected += t.rejected;
      sum.fieldErrors += t.fieldErrors;
      sum.duplicates += t.duplicates;
    }
    let unknownFields = 0;
    for (const n of Object.values(this.unknownFields)) unknownFields += n ?? 0;
    return { requests: this.requests, retries: this.retries, unknownFields, ...sum };
  }
}
