import { type WorldContext, invalidate, liveEvent } from './context.js';
import { dayFromIso } from './dates.js';
import { FLAG, at, internCarNumber, item } from './model.js';
import type { ResultCorrection } from './types.js';

/**
 * What the admin API can change. Each mutation edits the model or the clock and then drops
 * every cached derived figure, so standings, passes, stats and the feed follow on the next
 * request. Input that names nothing in the world throws (the admin API answers 400).
 */

export function setToday(ctx: WorldContext, date: string): void {
  ctx.today = dayFromIso(date);
  invalidate(ctx);
}

export function advanceDays(ctx: WorldContext, days: number): void {
  if (!Number.isInteger(days) || days < 0) throw new Error(`advanceDays takes a whole number of days >= 0, got ${days}`);
  ctx.today += days;
  invalidate(ctx);
}

function rowOf(ctx: WorldContext, c: ResultCorrection): number {
  const { model } = ctx;
  const e = liveEvent(ctx, c.eventId);
  if (e === undefined) throw new Error(`no event ${c.eventId}`);
  const event = item(model.events, e);
  let ec = -1;
  for (let i = event.ecStart; i < event.ecStart + event.ecCount; i++) {
    if (item(model.classes, at(model.eventClasses.cls, i)).id === c.classId) ec = i;
  }
  if (ec < 0) throw new Error(`event ${c.eventId} has no class ${c.classId}`);
  if (c.raceNumber < 1 || c.raceNumber > at(model.eventClasses.raceCount, ec)) {
    throw new Error(`class ${c.classId} at event ${c.eventId} has no race ${c.raceNumber}`);
  }
  const race = at(model.eventClasses.raceStart, ec) + c.raceNumber - 1;
  if (c.rowIndex < 1 || c.rowIndex > at(model.races.rowCount, race)) {
    throw new Error(`race ${c.raceNumber} of class ${c.classId} at event ${c.eventId} has no row ${c.rowIndex}`);
  }
  return at(model.races.rowStart, race) + c.rowIndex - 1;
}

/** Positions live in a byte per row; a field of 255 cars is beyond any real short track. */
function position(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > 255) throw new Error(`${name} must be 1..255, got ${value}`);
  return value;
}

/**
 * Overrides fields of one row in place. The row keeps its place in the list (its row_index),
 * as a corrected result keeps its line on the upstream's page.
 */
export function correctResult(ctx: WorldContext, c: ResultCorrection): void {
  const { rows } = ctx.model;
  const row = rowOf(ctx, c);
  const { finish, start, carNumber, dnf, dns, dq } = c.set;
  // Check everything before writing anything, so a rejected correction changes nothing.
  const newFinish = finish === undefined ? at(rows.finish, row) : position('finish', finish);
  const newStart = start === undefined ? at(rows.start, row) : position('start', start);
  if (carNumber === '') throw new Error('carNumber must not be empty');
  let flags = at(rows.flags, row);
  const setFlag = (bit: number, on: boolean | undefined) => {
    if (on !== undefined) flags = on ? flags | bit : flags & ~bit;
  };
  setFlag(FLAG.dnf, dnf);
  setFlag(FLAG.dns, dns);
  setFlag(FLAG.dq, dq);
  rows.finish[row] = newFinish;
  rows.start[row] = newStart;
  if (carNumber !== undefined) rows.car[row] = internCarNumber(ctx.model, carNumber);
  rows.flags[row] = flags;
  invalidate(ctx);
}

export function cancelEvent(ctx: WorldContext, eventId: number): void {
  const e = ctx.model.eventById.get(eventId);
  if (e === undefined) throw new Error(`no event ${eventId}`);
  ctx.cancelled[e] = 1;
  invalidate(ctx);
}

export function renameDriver(ctx: WorldContext, driverId: number, name: { firstName?: string; lastName?: string }): void {
  const d = ctx.model.driverById.get(driverId);
  if (d === undefined) throw new Error(`no driver ${driverId}`);
  const driver = item(ctx.model.drivers, d);
  if (name.firstName !== undefined) driver.firstName = name.firstName;
  if (name.lastName !== undefined) driver.lastName = name.lastName;
  invalidate(ctx);
}
