// The endpoint layer's shared types, a leaf importing nothing: what other layers (the shapes
// file, the sync) name an endpoint by, without importing the declarations.

/** What a child endpoint fans out from: e.g. `{ year }`, `{ scheduleId }`, `{ eventId }`. */
export type Seed = Readonly<Record<string, number>>;

/** Every upstream endpoint pitwall mirrors, by the name its declaration, jobs and tables use. */
export type EndpointName =
  | 'schedule_years'
  | 'schedules'
  | 'events'
  | 'results'
  | 'lineups'
  | 'entry_list'
  | 'driver_passes'
  | 'results_feed'
  | 'driver_stats'
  | 'point_years'
  | 'point_schedules'
  | 'point_classes'
  | 'point_standings';
