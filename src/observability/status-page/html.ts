import { runOutlook } from '../running-runs.js';
import { triggerText } from '../status-queries.js';

import type { PageRun, StatusPageData } from './data.js';
import { escapeHtml as e } from './escape.js';
import { barChartSvg, type Bar } from './svg.js';

/**
 * Run outcomes drawn as failures: the ones an operator has to look at. Not `interrupted`: a stop
 * asked for (a deploy, Ctrl-C) is no failure; it is drawn amber, like a run going.
 */
const FAILED: ReadonlySet<string> = new Set(['failed', 'abandoned']);

// Inline, like the charts: the page loads nothing from anywhere, so it works offline and under a
// Content-Security-Policy that allows no external source.
const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1d2330;background:#fff}
h1{font-size:1.4rem;margin:0 0 .2rem}h2{font-size:1.1rem;margin:1.6rem 0 .5rem}
table{border-collapse:collapse;margin:.3rem 0}th,td{padding:.2rem .6rem;text-align:left;border-bottom:1px solid #e3e6ec;vertical-align:top;white-space:nowrap}
td.wrap{white-space:normal;max-width:24rem}
td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.failed td{background:#fdecec}.status-failed,.status-abandoned,.behind{color:#b3261e;font-weight:600}
.status-succeeded{color:#1e7b34}.status-running,.status-interrupted,.changing{color:#8a5a00}.muted{color:#6b7280}
.err{font-family:ui-monospace,monospace;font-size:12px;white-space:pre-wrap;word-break:break-word;max-width:48rem}
.charts{display:flex;flex-wrap:wrap;gap:1rem}.chart .bar{fill:#3b6fd8}.chart .bar.failed{fill:#d93025}
.chart .axis{font-size:10px;fill:#6b7280}.chart .baseline{stroke:#9aa1ad}figure{margin:0}figcaption{font-weight:600;margin-bottom:.2rem}
`;

function ago(seconds: number | null): string {
  if (seconds === null) return 'never';
  if (seconds < 90) return `${seconds} s ago`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86400)} d ago`;
}

const count = (n: number) => n.toLocaleString('en-US');

function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

function behindReason(t: StatusPageData['tables'][number]): string {
  if (t.failing_scopes > 0) return `${count(t.failing_scopes)} failing scope${t.failing_scopes === 1 ? '' : 's'}`;
  return `its last run ${t.job_last_status ?? ''}`;
}

const when = (at: string | null) => (at === null ? '' : at.replace('T', ' ').replace(/\.\d+Z$/, 'Z'));
const statusCell = (status: string | null) => (status === null ? '<span class="muted">never run</span>' : `<span class="status-${e(status)}">${e(status)}</span>`);

function table(id: string, headers: string[], rows: string[], empty: string): string {
  if (rows.length === 0) return `<p class="muted" id="${id}">${e(empty)}</p>`;
  return `<table id="${id}"><thead><tr>${headers.map((h) => `<th>${e(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The source's cell of a row, on a page of several sources; nothing on a page of one, which looks as it did before sources. */
const sourceCell = (several: boolean, source: string) => (several ? `<td>${e(source)}</td>` : '');
const sourceHeader = (several: boolean): string[] => (several ? ['source'] : []);

function runRow(r: PageRun, several: boolean): string {
  const failed = FAILED.has(r.status);
  return `<tr${failed ? ' class="failed"' : ''}><td class="n">${r.run_id}</td>${sourceCell(several, r.source)}<td>${e(r.job)}</td><td>${e(triggerText(r))}</td><td>${statusCell(r.status)}</td>`
    + `<td>${e(when(r.started_at))}</td><td class="n">${e(duration(r.duration_ms))}</td><td class="n">${count(r.requests)}</td><td class="n">${count(r.retries)}</td>`
    + `<td class="n">${count(r.rows_written)}</td><td class="n">${count(r.rows_rejected)}</td><td class="err">${e(r.error ?? '')}</td></tr>`;
}

function bars(runs: readonly PageRun[], value: (r: PageRun) => number, several: boolean): Bar[] {
  return [...runs].reverse().map((r) => ({
    label: `#${r.run_id}`,
    value: value(r),
    failed: FAILED.has(r.status),
    detail: `run ${r.run_id} (${several ? `${r.source} ` : ''}${r.job}, ${r.status})`,
  }));
}

function charts(data: StatusPageData, several: boolean): string {
  const figure = (caption: string, svg: string) => `<figure><figcaption>${e(caption)}</figcaption>${svg}</figure>`;
  const n = data.runs.length;
  const out = [
    figure(`Rows written per run (last ${n})`, barChartSvg({ title: 'Rows written per run', format: count, bars: bars(data.runs, (r) => r.rows_written, several) })),
    figure(`Requests per run (last ${n})`, barChartSvg({ title: 'Requests per run', format: count, bars: bars(data.runs, (r) => r.requests, several) })),
  ];
  for (const [job, all] of Object.entries(data.runs_per_job)) {
    // A chart per source of several: their runs' durations differ with their sites' sizes.
    for (const { source } of several ? data.sources : [{ source: null }]) {
      const runs = source === null ? all : all.filter((r) => r.source === source);
      if (runs.length === 0) continue;
      const title = `Duration of ${job} runs${source === null ? '' : ` of ${source}`}`;
      out.push(figure(`${title} (last ${runs.length})`, barChartSvg({ title, format: duration, bars: bars(runs, (r) => r.duration_ms, several) })));
    }
  }
  return `<div class="charts">${out.join('')}</div>`;
}

function runningTable(data: StatusPageData, several: boolean): string {
  return table(
    'running',
    ['run', ...sourceHeader(several), 'job', 'trigger', 'worker', 'started', 'requests', 'rows written', 'scopes done / known so far', 'ETA', 'last heartbeat'],
    data.running.map(
      (r) =>
        `<tr><td class="n">${r.run_id}</td>${sourceCell(several, r.source)}<td>${e(r.job)}</td><td>${e(triggerText(r))}</td><td>${e(r.worker)}</td><td>${e(when(r.started_at))}</td>`
        + `<td class="n">${count(r.requests)}</td><td class="n">${count(r.rows_written)}</td>`
        + `<td class="n">${count(r.scopes_done)} / ${count(r.scopes_total)}</td><td>${e(runOutlook(r, (s) => `about ${duration(s * 1000)} left`))}</td>`
        + `<td>${r.heartbeat_at ? e(when(r.heartbeat_at)) : '<span class="muted">none yet</span>'}</td></tr>`,
    ),
    'No run is going.',
  );
}

/** The fields the upstream stopped sending, each a likely rename: amber, with the fix to run. */
function missingFieldsNote(data: StatusPageData, several: boolean): string {
  if (data.missing_fields.length === 0) return '';
  const items = data.missing_fields
    .map((m) => `<li>${several ? `${e(m.source)}: ` : ''}<code>${e(m.endpoint)}</code> <code>${e(m.path)}</code> (since run ${m.since_run_id})</li>`)
    .join('');
  return `<div class="behind"><p>Modelled fields missing from every item, their columns left NULL (renamed upstream, most likely; <code>pitwall drift --suggest</code> writes the alias):</p><ul>${items}</ul></div>`;
}

/** Sources the worker no longer runs whose rows are still in the warehouse, and what to do about them. */
function unconfiguredNote(data: StatusPageData): string {
  const items = data.sources.flatMap(({ source, no_longer_configured: gone }) => {
    if (gone === null) return [];
    const since = gone.since ? `since ${e(when(gone.since))}` : `(not in this worker's PITWALL_SOURCES; last configured ${e(when(gone.last_configured_at))})`;
    const rows = gone.retired_at
      ? `retired ${e(when(gone.retired_at))}: its rows are marked deleted (<code>pitwall retire-source ${e(source)} --delete</code> removes them)`
      : `its rows are kept (<code>pitwall retire-source ${e(source)}</code> marks them deleted)`;
    return [`<li>${e(source)}: no longer configured ${since}; ${rows}</li>`];
  });
  return items.length ? `<div class="changing"><p>Sources no longer configured:</p><ul>${items.join('')}</ul></div>` : '';
}

/**
 * How things stand now, per job: the jobs whose latest finished run failed or was abandoned (a
 * failure the next run recovered from is history, in the runs table), each with its last success.
 */
function headline(data: StatusPageData, several: boolean): string {
  const down = data.jobs.filter((j) => j.outcome !== null && FAILED.has(j.outcome));
  const items = down.map(
    (j) => `<li>${several ? `${e(j.source)} ` : ''}${e(j.job)}: its latest finished run (${j.outcome_run_id ?? ''}) ${e(j.outcome ?? '')}; last success ${e(ago(j.last_success_age_seconds))}</li>`,
  );
  const now = down.length
    ? `<div class="behind" id="headline"><p>Not up to date now:</p><ul>${items.join('')}</ul></div>`
    : `<p class="muted" id="headline">${data.jobs.some((j) => j.outcome !== null) ? 'Every job\'s latest finished run succeeded.' : 'No run has finished yet.'}</p>`;
  return now + fillingNote(data, several);
}

/**
 * Sources whose warehouse part is still filling: no job of theirs has succeeded yet and a run of
 * theirs is going. Until one ends, the analytics views return few or no rows of them.
 */
function fillingNote(data: StatusPageData, several: boolean): string {
  const filling = data.sources.filter(
    ({ source }) => data.running.some((r) => r.source === source) && !data.jobs.some((j) => j.source === source && j.last_success_at !== null),
  );
  if (filling.length === 0) return '';
  const which = several ? ` (${filling.map((s) => e(s.source)).join(', ')})` : '';
  return `<p class="changing" id="filling">The warehouse is still filling${which}: no run has succeeded yet, so the analytics views return few or no rows until the first one ends (analytics.source_freshness says when each job last succeeded).</p>`;
}

/** The status page as one self-contained HTML document. Every value from the warehouse is escaped. */
export function renderStatusPage(data: StatusPageData): string {
  // A page of one source has no source column, as before sources existed.
  const several = data.sources.length > 1;
  const nextRun = (source: string, job: string) => data.sources.find((s) => s.source === source)?.next_runs[job] ?? null;
  // A source another worker owns is scheduled there: say which.
  const elsewhere = (source: string) => {
    const owner = data.sources.find((s) => s.source === source)?.owner;
    return owner ? `scheduled by worker ${e(owner)}` : 'not scheduled here';
  };
  const jobs = table(
    'jobs',
    [...sourceHeader(several), 'job', 'last run', 'status', 'started', 'last success', 'next run'],
    data.jobs.map(
      (j) =>
        `<tr${j.last_status !== null && FAILED.has(j.last_status) ? ' class="failed"' : ''}>${sourceCell(several, j.source)}<td>${e(j.job)}</td><td class="n">${j.last_run_id ?? ''}</td><td>${statusCell(j.last_status)}</td>`
        + `<td>${e(when(j.last_started_at))}</td><td>${e(ago(j.last_success_age_seconds))}</td>`
        + `<td>${nextRun(j.source, j.job) ? e(when(nextRun(j.source, j.job))) : `<span class="muted">${elsewhere(j.source)}</span>`}</td></tr>`,
    ),
    'no jobs',
  );
  const runs = table(
    'runs',
    ['run', ...sourceHeader(several), 'job', 'trigger', 'status', 'started', 'duration', 'requests', 'retries', 'rows written', 'rejected', 'error'],
    data.runs.map((r) => runRow(r, several)),
    'No run yet.',
  );
  const endpoints = table(
    'endpoints',
    [...sourceHeader(several), 'endpoint', 'scopes', 'ok', 'invalid', 'error', 'last success', 'items rejected', 'drift: unmodelled / missing / failing'],
    data.endpoints.map(
      (p) =>
        `<tr${p.invalid + p.error > 0 ? ' class="failed"' : ''}>${sourceCell(several, p.source)}<td>${e(p.endpoint)}</td><td class="n">${count(p.scopes)}</td><td class="n">${count(p.ok)}</td><td class="n">${count(p.invalid)}</td><td class="n">${count(p.error)}</td>`
        + `<td title="${e(when(p.last_success_at))}">${e(ago(p.last_success_age_seconds))}</td><td class="n">${count(p.items_rejected)}</td>`
        + `<td class="n">${p.drift ? `${count(p.drift.unmodelled)} / ${count(p.drift.missing)} / ${count(p.drift.failing)}` : '<span class="muted">–</span>'}</td></tr>`,
    ),
    'No scope synced yet.',
  );
  const failing = data.endpoints.flatMap((p) =>
    p.failing.map(
      (f) =>
        `<tr class="failed">${sourceCell(several, p.source)}<td>${e(p.endpoint)}</td><td>${e(f.params)}</td><td>${statusCell(f.status)}</td><td>${e(when(f.last_attempt_at))}</td><td class="err">${e(f.last_error ?? '')}</td></tr>`,
    ),
  );
  const tables = table(
    'tables',
    ['table', 'rows', 'last change', 'last checked', 'last tried by', 'fed by'],
    data.tables.map(
      (t) =>
        `<tr${t.behind ? ' class="failed"' : ''}><td>${e(t.table)}</td><td class="n">${t.rows_exact ? '' : '≈ '}${count(t.rows)}</td>`
        + `<td>${t.last_change_at ? e(when(t.last_change_at)) : '<span class="muted">not in the last runs</span>'}</td>`
        + `<td title="${e(when(t.checked_at))}">${e(ago(t.checked_age_seconds))}</td>`
        + `<td>${e(t.last_job ?? '')}${several && t.last_source !== null ? ` <span class="muted">(${e(t.last_source)})</span>` : ''}${t.behind ? ` <span class="behind">(${e(behindReason(t))})</span>` : ''}`
        + `${t.changing_in_run !== null ? ` <span class="changing">(changing now: run ${t.changing_in_run})</span>` : ''}</td>`
        + `<td class="muted wrap">${e(t.fed_by.join(', '))}</td></tr>`,
    ),
    'no tables',
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>pitwall status</title><link rel="icon" href="data:,"><style>${STYLE}</style></head>
<body>
<h1>pitwall status</h1>
<p class="muted">Generated ${e(when(data.generated_at))}. The same data as JSON: <a href="status.json">status.json</a>.</p>${several ? `<p class="muted">Sources: ${data.sources.map((x) => e(x.source)).join(', ')}.</p>` : ''}
${data.lock_session === 'lost' ? '<p class="behind">This worker holds no lock session: it owns no source and runs nothing until it has a new one (its log says why).</p>' : ''}
${headline(data, several)}
${unconfiguredNote(data)}
<h2>Jobs</h2>${jobs}
<h2>Running now</h2>${runningTable(data, several)}
${data.running.length ? '<p class="muted">Scopes known so far grow as the walk discovers them, so the ETA is a lower bound.</p>' : ''}
<h2>Runs</h2>${charts(data, several)}${runs}
<h2>Endpoints</h2>${endpoints}
${data.drift_recorded ? '' : '<p class="muted">No response shapes recorded yet: they are counted as runs load responses.</p>'}
${missingFieldsNote(data, several)}
<h2>Failing scopes</h2>${table('failing', [...sourceHeader(several), 'endpoint', 'params', 'status', 'last attempt', 'last error'], failing, 'None: every scope answered on its last attempt.')}
<h2>Set aside</h2>${setAsideTable(data, several)}
<h2>Tables</h2>${tables}
</body></html>
`;
}

/** Scopes runs skip for now, with why and until when. */
function setAsideTable(data: StatusPageData, several: boolean): string {
  const rows = data.set_aside.map(
    (f) =>
      `<tr class="failed">${sourceCell(several, f.source)}<td>${e(f.endpoint)}</td><td>${e(f.params)}</td><td>${e(`${f.failure_kind ?? ''} (${f.failure_stage ?? ''})`)}</td>`
      + `<td class="n">${count(f.failed_runs)}</td><td>${e(when(f.set_aside_until))}</td><td class="err">${e(f.last_error ?? '')}</td></tr>`,
  );
  const note = rows.length
    ? '<p class="muted">Each failed the same way in two runs in a row (three for a timeout, a reset or a 5xx); runs skip it until the time shown (PITWALL_SET_ASIDE_HOURS), and <code>pitwall sync --retry-set-aside</code> tries them now.</p>'
    : '';
  return table('set-aside', [...sourceHeader(several), 'endpoint', 'params', 'failure', 'runs in a row', 'until', 'last error'], rows, 'None: no scope keeps failing.') + note;
}
