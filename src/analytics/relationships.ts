/**
 * How the warehouse tables join. The upstream gives no foreign keys to rely on (a result can
 * name a driver before the driver's own row loads, and rows are soft-deleted independently), so
 * the schema declares none; this list is the join map instead. The ER diagram is drawn from it,
 * and test/analytics/relationships.test.ts checks that every live child row finds its parent in a
 * synced warehouse, so the diagram cannot promise a join that does not hold.
 */
export interface Relationship {
  /** Table names without schema (they are unique across mrp, pitwall and analytics). */
  parent: string;
  child: string;
  /** [child column, parent column] pairs. */
  on: ReadonlyArray<readonly [string, string]>;
}

const same = (...columns: string[]) => columns.map((c) => [c, c] as const);

export const RELATIONSHIPS: readonly Relationship[] = [
  { parent: 'schedule_years', child: 'schedules', on: [['schedule_year', 'year']] },
  { parent: 'schedules', child: 'schedule_events', on: same('schedule_id') },
  { parent: 'events', child: 'schedule_events', on: same('event_id') },
  { parent: 'events', child: 'event_classes', on: same('event_id') },
  { parent: 'classes', child: 'event_classes', on: same('class_id') },
  { parent: 'event_classes', child: 'races', on: same('event_id', 'class_id') },
  { parent: 'races', child: 'results', on: same('event_id', 'class_id', 'race_number') },
  { parent: 'drivers', child: 'results', on: same('driver_id') },
  { parent: 'races', child: 'lineups', on: same('event_id', 'class_id', 'race_number') },
  { parent: 'drivers', child: 'lineups', on: same('driver_id') },
  { parent: 'event_classes', child: 'entry_list', on: same('event_id', 'class_id') },
  { parent: 'drivers', child: 'entry_list', on: same('driver_id') },
  { parent: 'event_classes', child: 'driver_passes', on: same('event_id', 'class_id') },
  { parent: 'drivers', child: 'driver_passes', on: same('driver_id') },
  { parent: 'event_classes', child: 'results_feed', on: same('event_id', 'class_id') },
  { parent: 'drivers', child: 'results_feed', on: same('driver_id') },
  { parent: 'drivers', child: 'driver_stats', on: same('driver_id') },
  { parent: 'classes', child: 'driver_stats', on: same('class_id') },
  { parent: 'point_years', child: 'point_schedules', on: [['schedule_year', 'year']] },
  { parent: 'point_schedules', child: 'point_classes', on: same('schedule_id') },
  { parent: 'classes', child: 'point_classes', on: same('class_id') },
  { parent: 'point_classes', child: 'point_standings', on: same('schedule_id', 'class_id') },
  { parent: 'drivers', child: 'point_standings', on: same('driver_id') },
  { parent: 'point_standings', child: 'point_standings_history', on: same('schedule_id', 'class_id', 'driver_id') },
  { parent: 'sync_runs', child: 'rejects', on: [['run_id', 'run_id']] },
  { parent: 'sync_runs', child: 'sync_state', on: [['last_run_id', 'run_id']] },
];
