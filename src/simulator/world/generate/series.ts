import { yearOf } from '../dates.js';
import type { ScheduleRec } from '../model.js';
import { TAG, hash32 } from '../rng.js';

import { type Calendar, scheduleIdOf } from './calendar.js';

/**
 * A series site: besides its own calendar, a touring series per season whose nights are held
 * at the track sites. A tour night is the track's event itself, with its id, date, start, name,
 * description and kind: upstream ids are global, so an event held at a track and counted by a
 * series is one event, which both keys see. generateWorld draws an event's racing from
 * (seed, event id, class id) over the roster every site shares, so the racing is the same too.
 */

/** Nights a season's tour takes from each track site. */
const TOUR_NIGHTS_PER_TRACK = 3;

/**
 * `own` with a "<year> Touring Series" points schedule per year appended after its own
 * schedules (which so keep their ids), listing a few events of each of `tracks` (the track
 * sites' calendars, in site order). The picks hash the event id alone, and a night already
 * taken by one track is skipped at the next: the tour races at one track a night.
 */
export function withTouringSeries(
  own: Calendar,
  tracks: readonly Calendar[],
  seed: number,
  site: number,
  years: readonly number[],
): Calendar {
  const schedules: ScheduleRec[] = own.schedules.map((s) => ({ ...s, events: [] }));
  const guests: Calendar['events'] = [];
  for (const year of years) {
    const tour = schedules.length;
    schedules.push({
      id: scheduleIdOf(site, tour),
      name: `${year} Touring Series`,
      desc: 'Its nights are held at the tracks of the area',
      year,
      points: true,
      events: [],
    });
    const taken = new Set<number>();
    for (const track of tracks) {
      const ranked = track.events
        .filter((e) => yearOf(e.day) === year)
        .map((e) => ({ e, rank: hash32(seed, TAG.tour, e.id) }))
        .sort((a, b) => a.rank - b.rank || a.e.id - b.e.id);
      let picked = 0;
      for (const { e } of ranked) {
        if (picked === TOUR_NIGHTS_PER_TRACK) break;
        if (taken.has(e.day)) continue;
        taken.add(e.day);
        picked++;
        guests.push({ ...e, schedules: [tour] });
      }
    }
  }
  // Date and start order, as the calendar's own: its events keep their order among themselves
  // (their ids follow it), and a guest keeps its track's id wherever it lands.
  const events = [...own.events, ...guests].sort((a, b) => a.day - b.day || a.minutes - b.minutes || a.id - b.id);
  events.forEach((e, i) => {
    for (const s of e.schedules) schedules[s]?.events.push(i);
  });
  return { schedules, events };
}
