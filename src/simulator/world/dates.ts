import { parseUsDateTime } from '../../api/schemas/primitives.js';

/**
 * Calendar arithmetic on day numbers (days since 1970-01-01, in UTC so no zone or DST ever
 * shifts a day), and the text forms the upstream and the warehouse use.
 */

const MS_PER_DAY = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export const WEEKDAY = { sunday: 0, monday: 1, tuesday: 2, wednesday: 3, thursday: 4, friday: 5, saturday: 6 } as const;

export function dayFromParts(year: number, month: number, day: number): number | undefined {
  const ms = Date.UTC(year, month - 1, day);
  const probe = new Date(ms);
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) {
    return undefined;
  }
  return ms / MS_PER_DAY;
}

/** `YYYY-MM-DD` to a day number; throws on anything else, since callers pass configuration. */
export function dayFromIso(text: string): number {
  const m = ISO_DATE.exec(text);
  const day = m ? dayFromParts(Number(m[1]), Number(m[2]), Number(m[3])) : undefined;
  if (day === undefined) throw new Error(`expected a date as YYYY-MM-DD, got ${JSON.stringify(text)}`);
  return day;
}

interface Parts {
  year: number;
  month: number;
  day: number;
}

function parts(dayNumber: number): Parts {
  const d = new Date(dayNumber * MS_PER_DAY);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

export function isoFromDay(dayNumber: number): string {
  const p = parts(dayNumber);
  return `${p.year}-${pad2(p.month)}-${pad2(p.day)}`;
}

export function yearOf(dayNumber: number): number {
  return parts(dayNumber).year;
}

/** 0 = Sunday ... 6 = Saturday. Day 0 (1970-01-01) was a Thursday. */
export function weekdayOf(dayNumber: number): number {
  return (((dayNumber + 4) % 7) + 7) % 7;
}

/** The first day on or after `dayNumber` that falls on `weekday`. */
export function nextWeekday(dayNumber: number, weekday: number): number {
  return dayNumber + ((weekday - weekdayOf(dayNumber) + 7) % 7);
}

/** The upstream's date-time: `7/4/2026 7:00:00 PM`; `minutes` is minutes after midnight. */
export function usDateTime(dayNumber: number, minutes: number): string {
  const p = parts(dayNumber);
  const hour24 = Math.floor(minutes / 60);
  const hour12 = hour24 % 12 === 0 ? 12 : hour24 % 12;
  const ampm = hour24 < 12 ? 'AM' : 'PM';
  return `${p.month}/${p.day}/${p.year} ${hour12}:${pad2(minutes % 60)}:00 ${ampm}`;
}

/** The warehouse's timestamp text: `2026-07-04 19:00:00`. */
export function canonicalTimestamp(dayNumber: number, minutes: number): string {
  return `${isoFromDay(dayNumber)} ${pad2(Math.floor(minutes / 60))}:${pad2(minutes % 60)}:00`;
}

/**
 * A date given in a request: US `M/D/YYYY` (padded or not, a time part ignored) as the upstream
 * documents, read by the same parser pitwall reads response dates with; or ISO `YYYY-MM-DD` as
 * a courtesy. Undefined when it is neither.
 */
export function parseRequestDate(text: string): number | undefined {
  const trimmed = text.trim();
  const iso = ISO_DATE.exec(trimmed);
  if (iso) return dayFromParts(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const us = parseUsDateTime(trimmed);
  return us === null ? undefined : dayFromIso(us.slice(0, 10));
}
