import type { RunSummary } from '../sync/run.js';
import { describeWarning } from '../sync/shape/vanished.js';

import { EXIT } from './context.js';
import { renderTable } from './format.js';
import { perSourceJson, perSourceText } from './per-source.js';

/** The machine-readable summary of `pitwall sync --json`: one JSON object. */
export const summaryJson = (s: RunSummary): string => JSON.stringify(summaryObject(s));

/** That summary as an object, for a report of several sources. */
function summaryObject(s: RunSummary): Record<string, unknown> {
  return {
    runId: s.runId,
    job: s.job,
    status: s.status,
    requests: s.requests,
    retries: s.retries,
    durationMs: s.durationMs,
    tables: s.tables,
    scopes: s.scopes,
    unknownFields: s.unknownFields,
    missingFields: s.missingFields,
    repairedBodies: s.repairedBodies,
    maskedValues: s.maskedValues,
    ...(s.keyRefused ? { keyRefused: true } : {}),
    ...(s.upstreamUnreachable ? { upstreamUnreachable: true } : {}),
    ...(s.continues ? { continues: s.continues } : {}),
    ...(s.error ? { error: s.error } : {}),
  };
}

/** The summaries of `sync` or `rebuild`, one per source (`names`), as text or JSON: one source's as it has always been printed. */
export function summariesReport(names: readonly string[], summaries: readonly RunSummary[], json: boolean): string {
  if (json) return perSourceJson(names, summaries.map(summaryObject));
  return perSourceText(names, summaries.map(summaryText));
}

/** The per-table summary a person reads after `pitwall sync`. */
export function summaryText(s: RunSummary): string {
  const rows = Object.entries(s.tables)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([table, c]) => [table, c?.inserted ?? 0, c?.updated ?? 0, c?.unchanged ?? 0, c?.seenAgain ?? 0, c?.deleted ?? 0, c?.rejected ?? 0, c?.fieldErrors ?? 0, c?.duplicates ?? 0]);
  const head =
    `run ${s.runId} (${s.job}): ${s.status} in ${(s.durationMs / 1000).toFixed(1)} s; ` +
    `${s.requests} requests, ${s.retries} retries; scopes loaded ${s.scopes.loaded}, unchanged ${s.scopes.unchanged}, ` +
    `invalid ${s.scopes.invalid}, failed ${s.scopes.failed}` +
    (s.scopes.setAside > 0 ? `, set aside ${s.scopes.setAside} (failing the same way run after run: pitwall status lists them)` : '') +
    unmodelledNote(s.unknownFields);
  // `unchanged`: rows stored before the run and found identical; `seen again`: a row met again in
  // the same run (a driver in every result of theirs), written at most once (docs/sync.md).
  const table = rows.length ? renderTable(['table', 'inserted', 'updated', 'unchanged', 'seen again', 'deleted', 'rejected', 'field errors', 'duplicates'], rows) : '';
  const masked = s.maskedValues > 0 ? [`note: ${s.maskedValues} value(s) in the responses held the API key and were stored masked as [redacted]`] : [];
  const missing = s.missingFields.map((w) => `warning: ${describeWarning(w)}; see pitwall drift --suggest`);
  // A refused key or an unreachable upstream is said once, in the command's line on stderr.
  const error = s.error && !s.keyRefused && !s.upstreamUnreachable ? `error: ${s.error}` : '';
  return [head, table, ...masked, ...missing, error].filter(Boolean).join('\n');
}

/** `; 3 unmodelled field(s) kept as received (results 2, lineups 1); see pitwall drift`, or nothing. */
function unmodelledNote(perEndpoint: RunSummary['unknownFields']): string {
  const entries = Object.entries(perEndpoint).filter(([, n]) => (n ?? 0) > 0);
  if (entries.length === 0) return '';
  const total = entries.reduce((sum, [, n]) => sum + (n ?? 0), 0);
  const detail = entries.map(([name, n]) => `${name} ${n}`).join(', ');
  return `; ${total} unmodelled field(s) kept as received (${detail}); pitwall drift says where`;
}

/**
 * The exit code of several runs or probes (one per source): the first failure's kind by
 * severity, so a refused key (`probe` exits 2 for one) or an unreachable upstream still says so
 * when another source succeeded.
 */
export function worstExitCode(codes: readonly number[]): number {
  const order = [EXIT.keyRefused, EXIT.usage, EXIT.upstreamUnreachable, EXIT.failed, EXIT.interrupted, EXIT.skipped];
  return order.find((code) => codes.includes(code)) ?? EXIT.ok;
}

/** The exit code of a finished run, for `sync` and `rebuild` alike (docs/commands.md lists them). */
export function runExitCode(s: RunSummary): number {
  if (s.keyRefused) return EXIT.keyRefused;
  if (s.upstreamUnreachable) return EXIT.upstreamUnreachable;
  if (s.status === 'succeeded') return EXIT.ok;
  if (s.status === 'skipped') return EXIT.skipped;
  if (s.status === 'interrupted') return EXIT.interrupted;
  return EXIT.failed;
}
