import { WEEKDAY, dayFromParts, nextWeekday, weekdayOf } from '../dates.js';
import type { EventKind, ScheduleRec } from '../model.js';
import { EVENT_DESCRIPTIONS, PROMO_NIGHTS, SPECIALS } from '../names.js';
import { TAG, hash01, hash32 } from '../rng.js';
import type { ScaleParams } from '../scales.js';

/**
 * Seasons, schedules and race nights. Per season: weekly points series (one per race night of
 * the week), a Summer Speedweek (points) of consecutive nights ending on a Saturday in late
 * June, and non-points Specials. A Speedweek Friday or Saturday is also that week's weekly
 * series night, so those events belong to two schedules.
 */

const SCHEDULE_ID_BASE = 5500;
const EVENT_ID_BASE = 400001;
const SEASON_WEEKS = 28;
/** Speedweek's Saturday is this many weeks after the season's first Friday (late June). */
const SPEEDWEEK_WEEK = 12;

const WEEKLY_SERIES = [
  { name: 'Weekly Points Series', weekday: WEEKDAY.friday, desc: 'Friday night track championship' },
  { name: 'Saturday Night Series', weekday: WEEKDAY.saturday, desc: '' },
  { name: 'Thursday Thunder Series', weekday: WEEKDAY.thursday, desc: 'Thursday night track championship' },
  { name: 'Sunday Showdown Series', weekday: WEEKDAY.sunday, desc: '' },
] as const;

export interface CalendarEvent {
  day: number;
  minutes: number;
  name: string;
  description: string;
  kind: EventKind;
  schedules: number[];
}

export interface Calendar {
  schedules: ScheduleRec[];
  /** Sorted by date and start time, with ids assigned in that order. */
  events: (CalendarEvent & { id: number })[];
}

/** Where each special falls, relative to the season's first Friday. */
function specialDay(name: (typeof SPECIALS)[number], year: number, firstFriday: number): number {
  const date = (m: number, d: number): number => dayFromParts(year, m, d) ?? firstFriday;
  switch (name) {
    case 'Season Opener':
      return firstFriday - 5;
    case 'Firecracker 40':
      return date(7, 4);
    case 'Fall Nationals':
      return firstFriday + 7 * SEASON_WEEKS + 1;
    case 'Labor Day Classic':
      return nextWeekday(date(9, 1), WEEKDAY.monday);
    case 'Spring Thaw':
      return firstFriday - 13;
    case 'Harvest 100':
      return firstFriday + 7 * (SEASON_WEEKS + 1) + 1;
    case 'Midsummer Madness':
      return firstFriday + 7 * 10 + 3;
  }
}

function startMinutes(seed: number, kind: EventKind, day: number): number {
  const roll = hash01(seed, TAG.calendar, day, 1);
  // About one event in seven publishes only its date, which the upstream renders as midnight.
  if (roll < 0.15) return 0;
  if (kind === 'special') {
    const weekday = weekdayOf(day);
    return weekday === WEEKDAY.sunday || weekday === WEEKDAY.monday ? 13 * 60 : 18 * 60 + 30;
  }
  return roll < 0.85 ? 19 * 60 : 19 * 60 + 30;
}

/**
 * Site `n`'s ids start this far apart from site `n - 1`'s; every scale's calendar has far fewer
 * schedules and events than that.
 */
const SITE_SCHEDULE_IDS = 1_000;
const SITE_EVENT_IDS = 100_000;

/** The id of site `site`'s schedule at `index` (its place in the site's calendar). */
export function scheduleIdOf(site: number, index: number): number {
  return SCHEDULE_ID_BASE + site * SITE_SCHEDULE_IDS + index;
}

/** `site`: 0 for a single site, else the site's index (see WorldOptions.site), which moves its ids. */
export function generateCalendar(seed: number, params: ScaleParams, years: readonly number[], site = 0): Calendar {
  const schedules: ScheduleRec[] = [];
  const nights: CalendarEvent[] = [];
  const addSchedule = (rec: Omit<ScheduleRec, 'id' | 'events'>): number => {
    schedules.push({ ...rec, id: scheduleIdOf(site, schedules.length), events: [] });
    return schedules.length - 1;
  };
  const text = (day: number): string =>
    hash01(seed, TAG.eventText, day, 0) < 0.25
      ? (EVENT_DESCRIPTIONS[hash32(seed, TAG.eventText, day, 1) % EVENT_DESCRIPTIONS.length] ?? '')
      : '';
  const night = (kind: EventKind, day: number, name: string, schedule: number): CalendarEvent => {
    const event = { day, minutes: startMinutes(seed, kind, day), name, description: text(day), kind, schedules: [schedule] };
    nights.push(event);
    return event;
  };

  for (const year of years) {
    const firstFriday = nextWeekday(dayFromParts(year, 4, 3) ?? 0, WEEKDAY.friday);
    const speedweekFriday = firstFriday + 7 * SPEEDWEEK_WEEK;
    const byDay = new Map<number, CalendarEvent>();
    const series = WEEKLY_SERIES.slice(0, params.weeklySeries).map((s) => ({
      ...s,
      index: addSchedule({ name: `${year} ${s.name}`, desc: s.desc, year, points: true }),
    }));
    for (const s of series) {
      const weeks = new Set<number>([SPEEDWEEK_WEEK]);
      for (let i = 0; i < params.nightsPerSeries; i++) weeks.add(Math.floor((i * SEASON_WEEKS) / params.nightsPerSeries));
      for (const week of [...weeks].sort((a, b) => a - b)) {
        const day = nextWeekday(firstFriday + 7 * week - 1, s.weekday);
        const promo = PROMO_NIGHTS[hash32(seed, TAG.eventText, day, 2) % PROMO_NIGHTS.length] ?? 'Weekly Racing';
        byDay.set(day, night('weekly', day, promo, s.index));
      }
    }
    const speedweek = addSchedule({
      name: `${year} Summer Speedweek`,
      desc: `${params.speedweekNights} nights in a row, its own points fund`,
      year,
      points: true,
    });
    const lastNight = speedweekFriday + 1;
    for (let n = 0; n < params.speedweekNights; n++) {
      const day = lastNight - (params.speedweekNights - 1) + n;
      const name = `Summer Speedweek Night ${n + 1}`;
      const weekly = byDay.get(day);
      if (weekly) {
        weekly.name = name;
        weekly.kind = 'speedweek';
        weekly.schedules.push(speedweek);
      } else {
        const event = night('speedweek', day, name, speedweek);
        // Without its own series that night, a Speedweek weekend night still pays weekly points.
        const weekday = weekdayOf(day);
        const first = series[0];
        if (first && (weekday === WEEKDAY.friday || weekday === WEEKDAY.saturday)) event.schedules.unshift(first.index);
      }
    }
    const specials = addSchedule({ name: `${year} Specials`, desc: '', year, points: false });
    for (const name of SPECIALS.slice(0, params.specials)) {
      night('special', specialDay(name, year, firstFriday), name, specials);
    }
  }

  nights.sort((a, b) => a.day - b.day || a.minutes - b.minutes || (a.schedules[0] ?? 0) - (b.schedules[0] ?? 0));
  const events = nights.map((e, i) => ({ ...e, id: EVENT_ID_BASE + site * SITE_EVENT_IDS + i }));
  events.forEach((e, i) => {
    e.schedules.sort((a, b) => a - b);
    for (const s of e.schedules) schedules[s]?.events.push(i);
  });
  return { schedules, events };
}
