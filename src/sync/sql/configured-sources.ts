import type pg from 'pg';

import type { Reader } from '../../db/reader.js';

/** What pitwall.sources says of a source the configuration no longer names. */
export interface NoLongerConfigured {
  /** When a worker or sync first started without it; null while none has (this process alone lacks it). */
  since: string | null;
  /** When a worker or sync last started with it configured; null for a source never recorded. */
  last_configured_at: string | null;
  /** When `pitwall retire-source` marked its rows deleted; null while they are live. */
  retired_at: string | null;
}

/**
 * Records the sources a worker or `pitwall sync` starts with (its whole PITWALL_SOURCES, whatever
 * `--source` picks): each is configured now, and any other recorded source is no longer
 * configured from now on, unless an earlier start already found it so. One statement, so two
 * processes starting together each leave a consistent table.
 */
export async function recordConfiguredSources(db: pg.Pool, names: readonly string[]): Promise<void> {
  await db.query(
    `WITH named AS (
       INSERT INTO pitwall.sources (source) SELECT unnest($1::text[])
       ON CONFLICT (source) DO UPDATE SET last_configured_at = now(), unconfigured_since = NULL, retired_at = NULL
     )
     UPDATE pitwall.sources SET unconfigured_since = now()
      WHERE unconfigured_since IS NULL AND source <> ALL($1::text[])`,
    [names],
  );
}

/** Per source of `names` that this process's configuration lacks: what the warehouse recorded of it. */
export async function noLongerConfigured(db: Reader, names: readonly string[]): Promise<Map<string, NoLongerConfigured>> {
  const { rows } = await db.query<NoLongerConfigured & { source: string }>(
    `SELECT n.source, s.unconfigured_since AS since, s.last_configured_at, s.retired_at
       FROM unnest($1::text[]) AS n(source) LEFT JOIN pitwall.sources AS s ON s.source = n.source`,
    [names],
  );
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : null);
  return new Map(rows.map((r) => [r.source, { since: iso(r.since), last_configured_at: iso(r.last_configured_at), retired_at: iso(r.retired_at) }]));
}
