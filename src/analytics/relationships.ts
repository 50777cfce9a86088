/**
 * How the warehouse tables join. The ER diagram is drawn from this list, and every join is a
 * foreign key in the catalog, where BI tools read them to offer joins and draw diagrams:
 * - joins marked `enforced` are enforced keys, declared by migrations 0016 and 0019 (DEFERRABLE
 *   INITIALLY DEFERRED, so the order of writes inside a scope's transaction stays free);
 * - every other join is declared NOT ENFORCED on PostgreSQL 18 and later (no trigger, no check,
 *   no cost on write), by src/db/catalog-keys.ts after migrations, with a comment saying when it
 *   holds; on 15 to 17 it has no key (docs/warehouse.md says what to set in a BI tool instead).
 * test/analytics/relationships.test.ts checks that the constraints in the database are exactly
 * these, and that every live child row finds its parent in a synced warehouse.
 *
 * A join is enforced where the parent row is written in the same transaction as the child (one
 * response feeds both tables, or a trigger writes the child) or before it by construction; mrp
 * rows are never deleted (a deletion upstream sets `_deleted_at`), so a parent once written stays.
 * The joins of the per-row tables hold so too, but an enforced key on them costs too much (PER_ROW).
 */
export interface Relationship {
  /** Table names without schema (they are unique across mrp, pitwall and analytics). */
  parent: string;
  child: string;
  /** [child column, parent column] pairs; within one source (`source` is added to both sides) unless `global`. */
  on: ReadonlyArray<readonly [string, string]>;
  /** Whether the ids are global, not per source (pitwall's run ids). */
  global?: boolean;
  /** `true`: an enforced foreign key holds it; else why it is not enforced (docs/warehouse.md and the key's comment say it). */
  enforced: true | string;
  /**
   * When the join holds: `always`, at every commit, by construction (every enforced join is so);
   * `complete`, once the warehouse is complete, since the parent row comes from another request
   * than the child's, which a sync may not have loaded yet.
   */
  holds: 'always' | 'complete';
}

/** The first PostgreSQL (server_version_num) that declares a foreign key NOT ENFORCED. */
export const NOT_ENFORCED_SINCE = 180_000;

/** How a join is a foreign key on a server of `serverVersionNum`: enforced, NOT ENFORCED, or not at all. */
export const declaredAs = (r: Relationship, serverVersionNum: number): 'enforced' | 'not enforced' | 'none' =>
  r.enforced === true ? 'enforced' : serverVersionNum >= NOT_ENFORCED_SINCE ? 'not enforced' : 'none';

/**
 * When the join holds, as one sentence: the comment on its NOT ENFORCED key (COMMENT ON
 * CONSTRAINT, which DBeaver and psql's \dd show) and docs/warehouse.md's join list.
 */
export function holdsWhen(r: Relationship): string {
  const when = r.holds === 'always' ? 'Holds always, by construction' : 'Holds once the warehouse is complete (the parent comes from another request)';
  return r.enforced === true ? `${when}.` : `${when}; not enforced: ${r.enforced}.`;
}

const same = (...columns: string[]) => columns.map((c) => [c, c] as const);

/** The foreign key's name in the database (migrations 0016 and 0019; src/db/catalog-keys.ts). */
export const constraintName = (r: Relationship): string => `${r.child}_${r.parent}_fk`;

const OTHER_SCOPE = 'written from another request than the child, in its own transaction, which may fail, be skipped or not be walked by the job that writes the child';
/**
 * The joins of the rows every event's responses are made of (a result, a lineup, an entry, a
 * pass, a feed row): they hold by construction, but a foreign key checks and locks the parent row
 * for each child row written, and a first full sync writes hundreds of thousands of them.
 */
const PER_ROW = 'one response feeds both tables, in one transaction, but an enforced key is checked for each of the hundreds of thousands of rows a full sync writes, and raised PostgreSQL\'s CPU per full sync by about 40 % (docs/decisions.md); the relationships test checks it instead';

const CLASSES = 'classes rows come from the results, lineups and entry-list responses; an event card, a points class or a driver stat may name a class none of those has shown yet';

export const RELATIONSHIPS: readonly Relationship[] = [
  { parent: 'schedule_years', child: 'schedules', on: [['schedule_year', 'year']], enforced: `the year's row is ${OTHER_SCOPE} (the years list)`, holds: 'complete' },
  { parent: 'schedules', child: 'schedule_events', on: same('schedule_id'), enforced: `the schedule's row is ${OTHER_SCOPE} (the year's schedules)`, holds: 'complete' },
  { parent: 'events', child: 'schedule_events', on: same('event_id'), enforced: true, holds: 'always' },
  { parent: 'events', child: 'event_classes', on: same('event_id'), enforced: true, holds: 'always' },
  { parent: 'classes', child: 'event_classes', on: same('class_id'), enforced: CLASSES, holds: 'complete' },
  { parent: 'event_classes', child: 'races', on: same('event_id', 'class_id'), enforced: `the event's card is ${OTHER_SCOPE}: the live job loads results of events not yet in mrp.events`, holds: 'complete' },
  { parent: 'races', child: 'results', on: same('event_id', 'class_id', 'race_number'), enforced: PER_ROW, holds: 'always' },
  { parent: 'drivers', child: 'results', on: same('driver_id'), enforced: PER_ROW, holds: 'always' },
  { parent: 'races', child: 'lineups', on: same('event_id', 'class_id', 'race_number'), enforced: `races come from the results response: a lineup is posted before its race has results`, holds: 'complete' },
  { parent: 'drivers', child: 'lineups', on: same('driver_id'), enforced: PER_ROW, holds: 'always' },
  { parent: 'event_classes', child: 'entry_list', on: same('event_id', 'class_id'), enforced: `the event's card is ${OTHER_SCOPE}`, holds: 'complete' },
  { parent: 'drivers', child: 'entry_list', on: same('driver_id'), enforced: PER_ROW, holds: 'always' },
  { parent: 'event_classes', child: 'driver_passes', on: same('event_id', 'class_id'), enforced: `the event's card is ${OTHER_SCOPE}`, holds: 'complete' },
  { parent: 'drivers', child: 'driver_passes', on: same('driver_id'), enforced: PER_ROW, holds: 'always' },
  { parent: 'event_classes', child: 'results_feed', on: same('event_id', 'class_id'), enforced: `the feed names the latest events, whose cards may not be loaded yet (${OTHER_SCOPE})`, holds: 'complete' },
  { parent: 'drivers', child: 'results_feed', on: same('driver_id'), enforced: PER_ROW, holds: 'always' },
  { parent: 'drivers', child: 'driver_stats', on: same('driver_id'), enforced: true, holds: 'always' },
  { parent: 'classes', child: 'driver_stats', on: same('class_id'), enforced: CLASSES, holds: 'complete' },
  { parent: 'point_years', child: 'point_schedules', on: [['schedule_year', 'year']], enforced: `the year's row is ${OTHER_SCOPE} (the points years list)`, holds: 'complete' },
  { parent: 'point_schedules', child: 'point_classes', on: same('schedule_id'), enforced: `the points schedule's row is ${OTHER_SCOPE}`, holds: 'complete' },
  { parent: 'classes', child: 'point_classes', on: same('class_id'), enforced: CLASSES, holds: 'complete' },
  { parent: 'point_classes', child: 'point_standings', on: same('schedule_id', 'class_id'), enforced: `the points class's row is ${OTHER_SCOPE}`, holds: 'complete' },
  { parent: 'drivers', child: 'point_standings', on: same('driver_id'), enforced: true, holds: 'always' },
  { parent: 'point_standings', child: 'point_standings_history', on: same('schedule_id', 'class_id', 'driver_id'), enforced: true, holds: 'always' },
  { parent: 'sync_runs', child: 'rejects', on: [['run_id', 'run_id']], global: true, enforced: true, holds: 'always' },
  {
    parent: 'sync_runs',
    child: 'sync_state',
    on: [['last_run_id', 'run_id']],
    global: true,
    enforced: 'a run writes its scopes\' state, but an enforced key locked the run\'s one row at every scope\'s commit, from each of its concurrent transactions: about 2 % of PostgreSQL\'s CPU per full sync (docs/decisions.md); dropped by migration 0019',
    holds: 'always',
  },
];

const SCHEMA_OF: Readonly<Record<string, string>> = { sync_runs: 'pitwall', sync_state: 'pitwall', rejects: 'pitwall', point_standings_history: 'analytics' };

/** A table named in RELATIONSHIPS, with its schema. */
export const qualifiedTable = (table: string): string => `${SCHEMA_OF[table] ?? 'mrp'}.${table}`;

/** The join's column pairs as the foreign key has them: `source` last (as in every key), unless the ids are global. */
export const keyPairs = (r: Relationship): ReadonlyArray<readonly [string, string]> => (r.global ? r.on : [...r.on, ['source', 'source']]);
