import type { WarehouseTableName } from '../../db/schema/mrp.js';

/**
 * The contract between the simulated racing world (src/simulator/world/) and the HTTP server
 * that serves it (src/simulator/server.ts). The world knows racing and the wire shapes; the
 * server knows HTTP, keys, the envelope, faults, latency and the admin routes.
 */

export type Scale = 'tiny' | 'small' | 'medium' | 'large';

export interface WorldOptions {
  seed: number;
  scale: Scale;
  /**
   * One site of several (1-based), as `pitwall simulate --sites N` serves them: its own
   * schedules and events (ids apart from every other site's, so an id means one thing on the
   * whole platform), racing the classes and drivers every site of the seed shares. Unset: the
   * one site of a single-site simulator, exactly as before sites existed.
   */
  site?: number;
  /**
   * How many sites the simulator serves, `site` being one of them; unset: one. Of two or more,
   * the last is a series site: besides its own calendar, a touring series per season lists a
   * few events of each other site, the same events their worlds hold, ids included
   * (generate/series.ts).
   */
  sites?: number;
  /** The simulated "today", `YYYY-MM-DD`. Events after it have no results yet. */
  today?: string;
}

/**
 * Quirks seen in real responses. Each is a fraction 0..1 of the places it could apply to,
 * chosen deterministically from the seed and the entity (never from request order), so the same
 * seed always renders byte-identical bodies.
 */
export interface Quirks {
  /** IDs rendered as numeric strings ("123") instead of numbers. */
  idsAsStrings: number;
  /** Flags rendered as 1/0 instead of true/false. */
  flagsAsInts: number;
  /** Optional text that is absent rendered as "" (otherwise the field is still present, as ""). */
  emptyStrings: number;
  /** PointTotal with a decimal part (".5") where points allow it; it is always a string. */
  decimalPoints: number;
  /** Share of drivers whose names carry accents or apostrophes (world generation). */
  unicodeNames: number;
  /** Share of /v2/points/ bodies that carry the `,,` defect (server applies it to the text). */
  doubleComma: number;
  /**
   * Share of result rows, lineup rows and entry-list entries sent twice, the copy right after
   * the item, as an upstream that repeats itself would; the truth holds each once.
   */
  duplicateRows: number;
}

export const DEFAULT_QUIRKS: Quirks = {
  idsAsStrings: 0.3,
  flagsAsInts: 0.5,
  emptyStrings: 1,
  decimalPoints: 0.2,
  unicodeNames: 0.15,
  doubleComma: 0.1,
  duplicateRows: 0,
};

export const NO_QUIRKS: Quirks = {
  idsAsStrings: 0,
  flagsAsInts: 0,
  emptyStrings: 1,
  decimalPoints: 0,
  unicodeNames: 0,
  doubleComma: 0,
  duplicateRows: 0,
};

/** What the world answers for one API request, before the server wraps it in the envelope. */
export type RenderOutcome =
  | {
      kind: 'ok';
      /** The array key of the envelope (`Schedules`, `ScheduleEvents`, `Classes`, ...). */
      arrayKey: string;
      items: unknown[];
      /** Extra top-level fields placed before the array (e.g. /v2/points/ ClassId, PointsAsOf). */
      header?: Record<string, unknown>;
    }
  /** The request lacks the filters the endpoint needs (e.g. /v2/schedules/results/ without EventId). */
  | { kind: 'missing-filter'; arrayKey: string; reason: string }
  /** Not one of the fourteen API paths. */
  | { kind: 'not-found' };

/** A correction of one result row, as a steward would post it. */
export interface ResultCorrection {
  eventId: number;
  classId: number;
  /** 1-based race number within the class (the warehouse's race_number). */
  raceNumber: number;
  /** 1-based row within the race's Results (the warehouse's row_index). */
  rowIndex: number;
  set: Partial<{ finish: number; start: number; carNumber: string; dnf: boolean; dns: boolean; dq: boolean }>;
}

/** One warehouse row as the ground truth states it: content columns only, no bookkeeping. */
export type TruthRow = Record<string, string | number | boolean | null>;

/**
 * Ground truth per warehouse table, in the warehouse's column names and canonical values:
 * integers as numbers, text as strings (null for none), booleans, timestamps as
 * `YYYY-MM-DD HH:MM:SS`, numerics as strings without trailing zeros ("12", "12.5").
 * Rows are sorted by the table's primary key.
 */
export type Truth = Record<WarehouseTableName, TruthRow[]>;

export interface WorldSummary {
  seed: number;
  scale: Scale;
  today: string;
  years: number[];
  schedules: number;
  events: number;
  eventsWithResults: number;
  classes: number;
  drivers: number;
  resultRows: number;
}

export interface World {
  readonly seed: number;
  readonly scale: Scale;
  today(): string;
  setToday(date: string): void;
  advanceDays(days: number): void;
  correctResult(correction: ResultCorrection): void;
  /** The event disappears upstream: from every schedule, every list, every derived figure. */
  cancelEvent(eventId: number): void;
  renameDriver(driverId: number, name: { firstName?: string; lastName?: string }): void;
  /** Answers one API request. `query` has the key already removed. Deterministic. */
  render(path: string, query: URLSearchParams, quirks: Quirks): RenderOutcome;
  truth(): Truth;
  summary(): WorldSummary;
}
