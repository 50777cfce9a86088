/**
 * The `drift` switch: bodies that differ from pitwall's declared shapes the way a real upstream's
 * might, so the first-run steps (probe, sync, `drift --suggest`, rebuild) can be rehearsed on an
 * upstream that needs a `PITWALL_SHAPES` file. Only the rendering changes, never the world: the
 * truth stays what the warehouse should hold once the suggested file is applied. Each change is
 * one that `pitwall drift --suggest` explains (src/shapes/suggest.ts):
 *
 * - results: `ResultStart` arrives as `StartPosition` (an alias);
 * - events: `EventDate` arrives as ISO `2026-07-04T19:00:00`, not `7/4/2026 7:00:00 PM` (a date format);
 * - new fields nobody declared: `EventUrl` on events, `ClassAbbreviation` on results' classes.
 *
 * The new fields sit at other levels than the renamed one on purpose: a second new field of a
 * compatible type beside `StartPosition` would leave the suggestion two candidates, and none chosen.
 */

import { parseUsDateTime } from '../api/schemas/primitives.js';

type Item = Record<string, unknown>;

const isItem = (v: unknown): v is Item => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `5/11/2015 7:30:00 PM` as `2015-05-11T19:30:00`, read as pitwall reads it; anything else as it came. */
function isoDateTime(us: unknown): unknown {
  return (typeof us === 'string' && parseUsDateTime(us)?.replace(' ', 'T')) || us;
}

/** `Pro Late Model` as `PLM`. */
const abbreviation = (name: unknown) =>
  typeof name === 'string' ? name.split(/\s+/).map((w) => w.charAt(0).toUpperCase()).join('') : name;

/** A copy of `item` with `from` renamed `to` in the same place among its keys. */
function renamed(item: Item, from: string, to: string): Item {
  return Object.fromEntries(Object.entries(item).map(([k, v]) => [k === from ? to : k, v]));
}

function driftEvent(event: Item): Item {
  return { ...event, EventDate: isoDateTime(event.EventDate), EventUrl: `/events/${String(event.EventId)}` };
}

function driftResultClass(klass: Item): Item {
  const races = Array.isArray(klass.Races) ? klass.Races : [];
  return {
    ...klass,
    ClassAbbreviation: abbreviation(klass.ClassName),
    Races: races.map((race: unknown) =>
      isItem(race) && Array.isArray(race.Results)
        ? { ...race, Results: race.Results.map((row: unknown) => (isItem(row) ? renamed(row, 'ResultStart', 'StartPosition') : row)) }
        : race,
    ),
  };
}

const BY_PATH: Record<string, (item: Item) => Item> = {
  '/v2/schedules/events/': driftEvent,
  '/v2/schedules/results/': driftResultClass,
};

/** The items of one API answer as a drifted upstream sends them: new objects, the originals untouched. */
export function driftItems(path: string, items: readonly unknown[]): unknown[] {
  const change = BY_PATH[path];
  return change ? items.map((item) => (isItem(item) ? change(item) : item)) : [...items];
}
