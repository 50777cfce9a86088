import type pg from 'pg';

import { queryWithRetry, withTransaction } from '../../db/transaction.js';
import { storableText } from '../extract/storable.js';

import { fenceRun } from './sync-runs.js';

/** Request scopes are identified by endpoint name plus the canonical query without the key. */
export const scopeKey = (endpoint: string, params: string): string => `${endpoint}?${params}`;

/**
 * Hashes of the last successful response per scope of a source, to skip identical responses; and
 * of those scopes, by scope key, the ones that `parts` (the earlier parts of a continued run)
 * finished.
 */
export async function loadResponseHashes(
  db: pg.Pool | pg.ClientBase,
  source: string,
  parts: readonly number[] = [],
): Promise<{ hashes: Map<string, string>; finished: Set<string> }> {
  const { rows } = await queryWithRetry<{ endpoint: string; params: string; response_hash: string; finished: boolean }>(
    db,
    `SELECT endpoint, params, response_hash, last_run_id = ANY($2::bigint[]) AS finished FROM pitwall.sync_state
      WHERE source = $1 AND status = 'ok' AND response_hash IS NOT NULL`,
    [source, parts],
  );
  const hashes = new Map<string, string>();
  const finished = new Set<string>();
  for (const r of rows) {
    const key = scopeKey(r.endpoint, r.params);
    hashes.set(key, r.response_hash);
    if (r.finished) finished.add(key);
  }
  return { hashes, finished };
}

/** A request scope of a source, as a run writes about it. */
export interface ScopeAt {
  runId: number;
  source: string;
  endpoint: string;
  params: string;
}

export interface ScopeSuccess extends ScopeAt {
  params: string;
  responseHash: string;
  itemCount: number;
}

/**
 * Written in the same transaction as the scope's data, so data and state commit together. It
 * also clears the scope's `pitwall.field_errors`, which the response just loaded replaces (its
 * own are inserted after this, see insertFieldErrors): one statement, so the clearing costs no
 * round trip on the responses (nearly all) that have none.
 *
 * Returns true when the scope had no row: its first load. Rows reach the warehouse only in the
 * transaction that writes their scope's row, and nothing deletes one, so no row of such a scope
 * is stored. Run first in the transaction, it settles that for a concurrent load of the same
 * scope too: that one waits on this row until this transaction ends, and then finds it.
 */
export async function recordScopeSuccess(db: pg.ClientBase | pg.Pool, s: ScopeSuccess): Promise<boolean> {
  const { rows } = await db.query<{ first: boolean }>({
    // Named: prepared once per connection, not parsed and planned again for each of a sync's scopes.
    name: 'pitwall_scope_success',
    text: `WITH cleared AS (DELETE FROM pitwall.field_errors WHERE source = $6 AND endpoint = $1 AND params = $2)
     INSERT INTO pitwall.sync_state AS s
       (source, endpoint, params, last_attempt_at, last_success_at, status, response_hash, item_count, last_error, last_run_id)
     VALUES ($6, $1, $2, now(), now(), 'ok', $3, $4, NULL, $5)
     ON CONFLICT (source, endpoint, params) DO UPDATE SET
       last_attempt_at = now(), last_success_at = now(), status = 'ok',
       response_hash = EXCLUDED.response_hash, item_count = EXCLUDED.item_count,
       last_error = NULL, last_run_id = EXCLUDED.last_run_id,
       failure_stage = NULL, failure_kind = NULL, failed_runs = 0, set_aside_until = NULL
     RETURNING s.xmax = 0 AS first`,
    values: [s.endpoint, s.params, s.responseHash, s.itemCount, s.runId, s.source],
  });
  return rows[0]?.first === true;
}

/**
 * Scopes whose response was identical to the last one, recorded in batches: only the attempt
 * and success times and the run move (the hash they matched is the one on record). One statement
 * per scope meant a round trip and a commit for each of the thousands of scopes a sync that
 * finds nothing new goes through. A batch is written when it is full, `maxWaitMs` after its first
 * scope came, at the end of each phase and when the run ends. A run that dies loses at most that
 * last second of touches: those scopes keep their older run and times, so the run that continues
 * it asks for them again (src/sync/sql/continuation.ts).
 */
export class ScopeTouches {
  private pending: Array<{ endpoint: string; params: string }> = [];
  private timer: NodeJS.Timeout | undefined;
  /** The batches written so far, one after another; a failed one's error waits for the next add or flush. */
  private writing: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly runId: number,
    private readonly source: string,
    private readonly batchSize = 200,
    private readonly maxWaitMs = 1_000,
  ) {}

  /** Records one unchanged scope; the batch is written when full, or a second after its first scope. */
  async add(endpoint: string, params: string): Promise<void> {
    this.rethrow();
    this.pending.push({ endpoint, params });
    if (this.pending.length >= this.batchSize) return this.flush();
    if (!this.timer) {
      // Its failure waits for the run's next add or flush; the run alone decides what it costs.
      this.timer = setTimeout(() => void this.writePending(), this.maxWaitMs);
      this.timer.unref();
    }
  }

  /** Writes what is pending, after any batch still being written; throws what a batch met. */
  async flush(): Promise<void> {
    await this.writePending();
    this.rethrow();
  }

  /** Queues what is pending behind the batches being written; resolves when all are, failed or not. */
  private writePending(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length > 0) {
      this.writing = this.writing.then(() =>
        this.write(batch).catch((error: unknown) => {
          this.failure ??= { error };
        }),
      );
    }
    return this.writing;
  }

  private rethrow(): void {
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure.error;
  }

  private async write(batch: Array<{ endpoint: string; params: string }>): Promise<void> {
    await withTransaction(this.pool, async (client) => {
      await client.query(
        `UPDATE pitwall.sync_state AS s
            SET last_attempt_at = now(), last_success_at = now(), last_run_id = $3
           FROM unnest($1::text[], $2::text[]) AS u(endpoint, params)
          WHERE s.source = $4 AND s.endpoint = u.endpoint AND s.params = u.params`,
        [batch.map((t) => t.endpoint), batch.map((t) => t.params), this.runId, this.source],
      );
      // A run's record of what it checked is one of its writes, fenced like its loads.
      await fenceRun(client, this.runId);
    });
  }
}

/** A scope's failure as recorded: `invalid` (RequestValid 0) or `error`, where and what, and whether it may set the scope aside. */
export interface ScopeFailureAt extends ScopeAt {
  status: 'invalid' | 'error';
  error: string;
  stage: string;
  kind: string;
  /** Runs in a row failing this way that set the scope aside (ASIDE_AFTER_RUNS in scope-failure.ts); 0 = never. */
  asideAfterRuns: number;
  /** How long a scope is set aside (PITWALL_SET_ASIDE_HOURS); 0 = never. */
  setAsideHours: number;
}

// Runs in a row that failed this way: a new kind starts again at 1, and a second failure within
// the same run (another phase's visit) is not another run.
const FAILED_RUNS = `CASE WHEN s.failure_kind IS DISTINCT FROM EXCLUDED.failure_kind THEN 1
                          WHEN s.last_run_id IS NOT DISTINCT FROM EXCLUDED.last_run_id THEN s.failed_runs
                          ELSE s.failed_runs + 1 END`;

/**
 * Records a scope's failure. The last good hash is kept, so a later identical response is still
 * recognised as already loaded. The same kind of failure in `asideAfterRuns` runs in a row sets
 * the scope aside for `setAsideHours` (docs/reliability.md); returns until when, or null.
 */
export async function recordScopeFailure(db: pg.Pool, f: ScopeFailureAt): Promise<Date | null> {
  const { rows } = await queryWithRetry<{ set_aside_until: Date | null }>(
    db,
    `INSERT INTO pitwall.sync_state AS s
       (source, endpoint, params, last_attempt_at, status, last_error, last_run_id, failure_stage, failure_kind, failed_runs)
     VALUES ($6, $1, $2, now(), $3, $4, $5, $7, $8, 1)
     ON CONFLICT (source, endpoint, params) DO UPDATE SET
       last_attempt_at = now(), status = EXCLUDED.status, last_error = EXCLUDED.last_error,
       last_run_id = EXCLUDED.last_run_id, failure_stage = EXCLUDED.failure_stage, failure_kind = EXCLUDED.failure_kind,
       failed_runs = ${FAILED_RUNS},
       set_aside_until = CASE
         WHEN $9::int = 0 OR $10::int = 0 OR ${FAILED_RUNS} < $9::int THEN NULL
         WHEN s.last_run_id IS NOT DISTINCT FROM EXCLUDED.last_run_id THEN s.set_aside_until
         ELSE now() + make_interval(hours => $10::int) END
     RETURNING set_aside_until`,
    [f.endpoint, f.params, f.status, storableText(f.error).slice(0, 2000), f.runId, f.source, f.stage, f.kind, f.asideAfterRuns, f.setAsideHours],
  );
  return rows[0]?.set_aside_until ?? null;
}

/**
 * Takes back what a run that ended with the upstream down recorded toward setting its failed
 * scopes aside: such a run says nothing about any one scope. Their failures stay on record.
 */
export async function discountRunFailures(db: pg.Pool, source: string, runId: number): Promise<void> {
  await queryWithRetry(
    db,
    `UPDATE pitwall.sync_state SET failed_runs = greatest(failed_runs - 1, 0), set_aside_until = NULL
      WHERE source = $1 AND last_run_id = $2 AND status = 'error'`,
    [source, runId],
  );
}

/** The scopes of a source that are set aside now, by scope key (see scopeKey), with until when. */
export async function loadSetAside(db: pg.Pool, source: string): Promise<Map<string, Date>> {
  const { rows } = await queryWithRetry<{ endpoint: string; params: string; set_aside_until: Date }>(
    db,
    `SELECT endpoint, params, set_aside_until FROM pitwall.sync_state WHERE source = $1 AND set_aside_until > now()`,
    [source],
  );
  return new Map(rows.map((r) => [scopeKey(r.endpoint, r.params), r.set_aside_until]));
}

/** Forget the hashes of these scopes, so their next response is processed even if identical. */
export async function forgetResponseHashes(db: pg.ClientBase, source: string, endpoint: string[], params: string[]): Promise<void> {
  if (params.length === 0) return;
  await db.query(
    `UPDATE pitwall.sync_state SET response_hash = NULL
      WHERE source = $3 AND endpoint = ANY($1::text[]) AND params = ANY($2::text[])`,
    [endpoint, params, source],
  );
}
