import {
  boolean,
  index,
  integer,
  numeric,
  pgSchema,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

import { bookkeeping, outerRaw, sourced } from './columns.js';

/**
 * The warehouse: one table per upstream entity, typed columns for every modelled field plus
 * the bookkeeping columns (see columns.ts). Upstream dates carry no zone, so they are stored as
 * `timestamp` (without time zone), exactly as the upstream states them.
 */
export const mrp = pgSchema('mrp');

const eventDate = (name: string) => timestamp(name, { mode: 'string' });

export const scheduleYears = mrp.table(
  'schedule_years',
  {
    ...sourced(),
    year: integer('year').notNull(),
    schedule_count: integer('schedule_count'),
    ...bookkeeping(),
  },
  (t) => [primaryKey({ columns: [t.year, t.source] })],
);

export const schedules = mrp.table(
  'schedules',
  {
    ...sourced(),
    schedule_id: integer('schedule_id').notNull(),
    schedule_name: text('schedule_name'),
    schedule_desc: text('schedule_desc'),
    schedule_year: integer('schedule_year'),
    event_count: integer('event_count'),
    ...bookkeeping(),
  },
  (t) => [primaryKey({ columns: [t.schedule_id, t.source] }), index('schedules_year_idx').on(t.schedule_year)],
);

export const events = mrp.table(
  'events',
  {
    ...sourced(),
    event_id: integer('event_id').notNull(),
    event_date: eventDate('event_date'),
    event_name: text('event_name'),
    event_description: text('event_description'),
    ...bookkeeping(),
  },
  (t) => [primaryKey({ columns: [t.event_id, t.source] }), index('events_date_idx').on(t.event_date)],
);

export const scheduleEvents = mrp.table(
  'schedule_events',
  {
    ...sourced(),
    schedule_id: integer('schedule_id').notNull(),
    event_id: integer('event_id').notNull(),
    ...bookkeeping(),
  },
  (t) => [primaryKey({ columns: [t.schedule_id, t.event_id, t.source] }), index('schedule_events_event_idx').on(t.event_id)],
);

export const eventClasses = mrp.table(
  'event_classes',
  {
    ...sourced(),
    event_id: integer('event_id').notNull(),
    class_id: integer('class_id').notNull(),
    class_name: text('class_name'),
    class_name_override: text('class_name_override'),
    ...bookkeeping(),
  },
  (t) => [primaryKey({ columns: [t.event_id, t.class_id, t.source] }), index('event_classes_class_idx').on(t.class_id)],
);

export const classes = mrp.table(
  'classes',
  {
    ...sourced(),
    class_id: integer('class_id').notNull(),
    class_name: text('class_name'),
    ...bookkeeping(),
  },
  (t) => [primaryKey({ columns: [t.class_id, t.source] })],
);

export const drivers = mrp.table(
  'drivers',
  {
    ...sourced(),
    driver_id: integer('driver_id').notNull(),
    first_name: text('first_name'),
    last_name: text('last_name'),
    suffix: text('suffix'),
    city: text('city'),
    state: text('state'),
    country: text('country'),
    ...bookkeeping(),
  },
  (t) => [primaryKey({ columns: [t.driver_id, t.source] }), index('drivers_last_name_idx').on(t.last_name)],
);

export const races = mrp.table(
  'races',
  {
    ...sourced(),
    event_id: integer('event_id').notNull(),
    class_id: integer('class_id').notNull(),
    /** 1-based position of the race within its class at the event, in upstream order. */
    race_number: integer('race_number').notNull(),
    race_name: text('race_name'),
    race_laps: integer('race_laps'),
    ...bookkeeping(),
    ...outerRaw(),
  },
  (t) => [primaryKey({ columns: [t.event_id, t.class_id, t.race_number, t.source] })],
);

export const results = mrp.table(
  'results',
  {
    ...sourced(),
    event_id: integer('event_id').notNull(),
    class_id: integer('class_id').notNull(),
    race_number: integer('race_number').notNull(),
    /** 1-based position of the row within the race's Results list, in upstream order. */
    row_index: integer('row_index').notNull(),
    driver_id: integer('driver_id'),
    driver_name: text('driver_name'),
    finish: integer('finish'),
    start: integer('start'),
    car_number: text('car_number'),
    dnf: boolean('dnf'),
    dns: boolean('dns'),
    dq: boolean('dq'),
    ...bookkeeping(),
    ...outerRaw(),
  },
  (t) => [
    primaryKey({ columns: [t.event_id, t.class_id, t.race_number, t.row_index, t.source] }),
    index('results_driver_idx').on(t.driver_id),
    index('results_class_idx').on(t.class_id),
  ],
);

export const lineups = mrp.table(
  'lineups',
  {
    ...sourced(),
    event_id: integer('event_id').notNull(),
    class_id: integer('class_id').notNull(),
    race_number: integer('race_number').notNull(),
    start_position: integer('start_position').notNull(),
    race_name: text('race_name'),
    car_number: text('car_number'),
    driver_id: integer('driver_id'),
    ...bookkeeping(),
    ...outerRaw(),
  },
  (t) => [
    primaryKey({ columns: [t.event_id, t.class_id, t.race_number, t.start_position, t.source] }),
    index('lineups_driver_idx').on(t.driver_id),
  ],
);

export const entryList = mrp.table(
  'entry_list',
  {
    ...sourced(),
    event_id: integer('event_id').notNull(),
    class_id: integer('class_id').notNull(),
    driver_id: integer('driver_id').notNull(),
    car_number: text('car_number'),
    ...bookkeeping(),
    ...outerRaw(),
  },
  (t) => [primaryKey({ columns: [t.event_id, t.class_id, t.driver_id, t.source] }), index('entry_list_driver_idx').on(t.driver_id)],
);

export const driverPasses = mrp.table(
  'driver_passes',
  {
    ...sourced(),
    event_id: integer('event_id').notNull(),
    class_id: integer('class_id').notNull(),
    driver_id: integer('driver_id').notNull(),
    car_number: text('car_number'),
    races: integer('races'),
    cars_passed: integer('cars_passed'),
    ...bookkeeping(),
  },
  (t) => [
    primaryKey({ columns: [t.event_id, t.class_id, t.driver_id, t.source] }),
    index('driver_passes_driver_idx').on(t.driver_id),
  ],
);

export const resultsFeed = mrp.table(
  'results_feed',
  {
    ...sourced(),
    event_id: integer('event_id').notNull(),
    class_id: integer('class_id').notNull(),
    finish: integer('finish').notNull(),
    event_date: eventDate('event_date'),
    event_name: text('event_name'),
    race_name: text('race_name'),
    car_number: text('car_number'),
    driver_id: integer('driver_id'),
    ...bookkeeping(),
    ...outerRaw(),
  },
  (t) => [primaryKey({ columns: [t.event_id, t.class_id, t.finish, t.source] })],
);

export const driverStats = mrp.table(
  'driver_stats',
  {
    ...sourced(),
    driver_id: integer('driver_id').notNull(),
    class_id: integer('class_id').notNull(),
    year: integer('year').notNull(),
    starts: integer('starts'),
    wins: integer('wins'),
    top5: integer('top5'),
    top10: integer('top10'),
    avg_start: numeric('avg_start'),
    avg_finish: numeric('avg_finish'),
    ...bookkeeping(),
  },
  (t) => [primaryKey({ columns: [t.driver_id, t.class_id, t.year, t.source] })],
);

export const pointYears = mrp.table(
  'point_years',
  {
    ...sourced(),
    year: integer('year').notNull(),
    schedule_count: integer('schedule_count'),
    ...bookkeeping(),
  },
  (t) => [primaryKey({ columns: [t.year, t.source] })],
);

export const pointSchedules = mrp.table(
  'point_schedules',
  {
    ...sourced(),
    schedule_id: integer('schedule_id').notNull(),
    schedule_name: text('schedule_name'),
    schedule_desc: text('schedule_desc'),
    schedule_year: integer('schedule_year'),
    class_count: integer('class_count'),
    ...bookkeeping(),
  },
  (t) => [primaryKey({ columns: [t.schedule_id, t.source] }), index('point_schedules_year_idx').on(t.schedule_year)],
);

export const pointClasses = mrp.table(
  'point_classes',
  {
    ...sourced(),
    schedule_id: integer('schedule_id').notNull(),
    class_id: integer('class_id').notNull(),
    class_name: text('class_name'),
    class_name_override: text('class_name_override'),
    points_as_of: eventDate('points_as_of'),
    ...bookkeeping(),
  },
  (t) => [primaryKey({ columns: [t.schedule_id, t.class_id, t.source] })],
);

/**
 * A standings row's key and content: mrp.point_standings holds the current ones, and
 * analytics.point_standings_history every version of them, so the two declare them once.
 */
export const standingColumns = () => ({
  schedule_id: integer('schedule_id').notNull(),
  class_id: integer('class_id').notNull(),
  driver_id: integer('driver_id').notNull(),
  position: integer('position'),
  car_number: text('car_number'),
  point_total: numeric('point_total'),
  wins: integer('wins'),
  top5: integer('top5'),
  top10: integer('top10'),
  features: integer('features'),
  points_as_of: eventDate('points_as_of'),
});

export const pointStandings = mrp.table(
  'point_standings',
  {
    ...sourced(),
    ...standingColumns(),
    ...bookkeeping(),
    ...outerRaw(),
  },
  (t) => [
    primaryKey({ columns: [t.schedule_id, t.class_id, t.driver_id, t.source] }),
    index('point_standings_driver_idx').on(t.driver_id),
  ],
);

/**
 * Every warehouse table by its SQL name. The simulator's ground truth (`/__simulator/truth`) and
 * the ingester's endpoint table both speak in these names.
 */
export const warehouseTables = {
  schedule_years: scheduleYears,
  schedules,
  events,
  schedule_events: scheduleEvents,
  event_classes: eventClasses,
  classes,
  drivers,
  races,
  results,
  lineups,
  entry_list: entryList,
  driver_passes: driverPasses,
  results_feed: resultsFeed,
  driver_stats: driverStats,
  point_years: pointYears,
  point_schedules: pointSchedules,
  point_classes: pointClasses,
  point_standings: pointStandings,
} as const;

export type WarehouseTableName = keyof typeof warehouseTables;
