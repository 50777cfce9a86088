import type { WarehouseTableName } from '../db/schema/mrp.js';

/**
 * The mrp tables no analytics view reads, each with why: analysts query them in mrp directly.
 * Every other table an endpoint writes is read by a view (the SQL is in migrations/).
 * test/endpoints/add-an-endpoint.test.ts reads the views' tables from the catalog and checks
 * that the two together are exactly the endpoints' tables, so a new endpoint's table gets a
 * view or a reason here, and a reason goes when a view starts reading its table.
 */
export const OUTSIDE_THE_VIEWS: Readonly<Partial<Record<WarehouseTableName, string>>> = {
  schedule_years: 'the years that have schedules: every schedule carries its year',
  point_years: 'the years that have points: every points schedule carries its year',
  lineups: 'the starting order of a race; once it is run, event_results has each car\'s start',
  entry_list: 'pre-entries, one row per car and already keyed by event and class',
  driver_passes: 'passing figures per driver and event, already keyed by event and class',
  results_feed: 'the upstream\'s feed of its latest results, which event_results holds in full',
  driver_stats: 'the upstream\'s own season figures; driver_season_summary computes them from the results',
};
