import type { NaturalKey } from '../../endpoints/declare.js';

type Keys = Readonly<Record<string, unknown>>;

/**
 * The values of an item's natural key (see NaturalKey in declare.ts), in the order of its
 * columns; null when an identity column is missing, and then only the whole item identifies it.
 * `rowKeys` are the item's key columns, `data` its parsed fields, `driverId` its driver's id.
 */
export function naturalValues(natural: NaturalKey, rowKeys: Keys, data: Keys, driverId: number | undefined): unknown[] | null {
  if (natural.kind === 'key') return natural.columns.map((column) => rowKeys[column]);
  const values: unknown[] = [];
  for (const [, wire] of natural.columns) {
    const value = wire === null ? driverId : data[wire];
    if (value === null || value === undefined) return null;
    values.push(value);
  }
  return values;
}

/** The text two siblings are compared by: their natural key, or, without one, the whole item as received. */
export function naturalText(values: readonly unknown[] | null, item: unknown): string {
  return values ? JSON.stringify(values) : `item ${JSON.stringify(item)}`;
}

/** What a copy shares with the item it duplicates, for the reason it is kept with: `driver_id 12, car_number "5"`. */
export function sameAs(natural: NaturalKey, values: readonly unknown[] | null): string {
  if (!values) return 'content';
  const columns = natural.kind === 'key' ? natural.columns : natural.columns.map(([column]) => column);
  return columns.map((column, i) => `${column} ${JSON.stringify(values[i])}`).join(', ');
}
