import type { DriverWire } from '../../../endpoints/driver.js';
import type { WorldContext } from '../context.js';
import { type DriverRec, at } from '../model.js';
import { formatHalfPoints } from '../points.js';
import { TAG, hash01 } from '../rng.js';
import type { Quirks, RenderOutcome } from '../types.js';

/** Which id a quirk choice is about, so EventId 7 and ClassId 7 are chosen independently. */
export const ID = { schedule: 1, event: 2, class: 3, driver: 4, year: 5 } as const;

/**
 * Renders values the way the upstream is loose about them. Every choice hashes (seed, what,
 * which entity), never a counter: the same driver's DriverId has the same form in every
 * response, and the same row renders byte-identically whatever was requested before, and in
 * every site's world that holds it.
 *
 * Of the other quirks, `emptyStrings` needs nothing here: text fields are always present and
 * "" when empty, which is what both of its settings describe. `unicodeNames` acts when the
 * world is generated, and `doubleComma` in the server, on the response text. `duplicateRows` is
 * here, applied by the renderers of the lists it repeats.
 */
export class Wire {
  constructor(
    readonly ctx: WorldContext,
    private readonly quirks: Quirks,
  ) {}

  private roll(tag: number, a: number, b: number): number {
    return hash01(this.ctx.model.seed, tag, a, b);
  }

  /** An id as a number, or (for the `idsAsStrings` share of entities) as numeric text. */
  id(kind: number, value: number): number | string {
    return this.roll(TAG.quirkId, kind, value) < this.quirks.idsAsStrings ? String(value) : value;
  }

  /** A place, start or position; `tag` says which, (a, b) which item. Text under `idsAsStrings`. */
  count(tag: number, a: number, b: number, value: number): number | string {
    return this.roll(tag, a, b) < this.quirks.idsAsStrings ? String(value) : value;
  }

  /** A place or start of result row `row` (an index into the row table), as `count`. */
  rowCount(tag: number, row: number, value: number): number | string {
    return this.count(tag, this.rowKey(row), 0, value);
  }

  /** A flag of result row `row` as true/false, or (for the `flagsAsInts` share of rows) as 1/0. */
  flag(row: number, which: number, value: boolean): boolean | 0 | 1 {
    if (this.roll(TAG.quirkFlag, this.rowKey(row), which) < this.quirks.flagsAsInts) return value ? 1 : 0;
    return value;
  }

  /**
   * `items` with each one `picked` chooses sent twice, the copy right after it (`duplicateRows`).
   * At rate 0, the default, the list as it is, and nothing is rolled.
   */
  twice<T>(items: T[], picked: (item: T) => boolean): T[] {
    if (this.quirks.duplicateRows === 0) return items;
    return items.flatMap((x) => (picked(x) ? [x, x] : [x]));
  }

  /** Whether result row `row` is sent twice in a list of rows: `list` 0 in results, 1 in lineups. */
  rowTwice(row: number, list: number): boolean {
    return this.roll(TAG.quirkDuplicateRow, this.rowKey(row), list) < this.quirks.duplicateRows;
  }

  /** Whether a driver's entry in an event's class is sent twice in the entry list (by ids, the same in every site). */
  entryTwice(eventId: number, classId: number, driverId: number): boolean {
    return this.roll(TAG.quirkDuplicateEntry, eventId, Math.imul(classId, 0x10001) ^ driverId) < this.quirks.duplicateRows;
  }

  /** Which row a quirk choice is about: the same upstream row has one key in every site's world. */
  private rowKey(row: number): number {
    const keys = this.ctx.model.rows.quirkKey;
    return keys === undefined ? row : at(keys, row);
  }

  /**
   * PointTotal is always text. For the `decimalPoints` share of rows it carries the column's
   * scale as .NET prints a decimal(…,2) ("143.00", "143.50"); otherwise the shortest form
   * ("143", "143.5"). Both parse to the same numeric, so the value never depends on quirks.
   */
  pointTotal(halfPoints: number, a: number, b: number): string {
    const text = formatHalfPoints(halfPoints);
    if (this.roll(TAG.quirkPointTotal, a, b) >= this.quirks.decimalPoints) return text;
    return text.includes('.') ? `${text}0` : `${text}.00`;
  }

  /** The `Driver: [ {...} ]` every endpoint nests; empty text stays "" (the field is always there). */
  driver(d: DriverRec): DriverWire[] {
    return [
      {
        DriverId: this.id(ID.driver, d.id),
        DriverFName: d.firstName,
        DriverLName: d.lastName,
        DriverSuffix: d.suffix,
        DriverCity: d.city,
        DriverState: d.state,
        DriverCountry: d.country,
      },
    ];
  }
}

export function ok(arrayKey: string, items: unknown[], header?: Record<string, unknown>): RenderOutcome {
  return header ? { kind: 'ok', arrayKey, items, header } : { kind: 'ok', arrayKey, items };
}

export function missing(arrayKey: string, reason: string): RenderOutcome {
  return { kind: 'missing-filter', arrayKey, reason };
}
