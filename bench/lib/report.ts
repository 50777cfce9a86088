import type { ContinuedFigures } from '../continued.js';
import type { E2eFigures, NoopFigures, RebuildFigures } from '../e2e.js';
import type { EmbeddedFigures } from '../embedded.js';
import type { LoaderFigures } from '../loader.js';
import type { MemoryFigures } from '../memory.js';
import type { SitesFigures } from '../sites.js';

import type { CpuSplit } from './cpu.js';

export interface Machine {
  cores: number;
  node: string;
  postgres: string;
  /** 1-minute load average when the run started and when it ended: other work on the machine skews every figure. */
  loadAverage: { start: number; end: number };
}

export interface BenchResults {
  mode: 'full' | 'quick';
  startedAt: string;
  machine: Machine;
  loader?: LoaderFigures;
  e2e?: E2eFigures;
  noop?: NoopFigures;
  rebuild?: RebuildFigures;
  memory?: MemoryFigures;
  embedded?: EmbeddedFigures;
  continued?: ContinuedFigures[];
  sites?: SitesFigures;
  /** Sections run again alone (`--only`) and laid into this run (merge-results.ts): which, and that run's start and load. */
  reruns?: Array<{ sections: string[]; startedAt: string; loadAverage: Machine['loadAverage'] }>;
  targets: Record<string, { target: string; met: boolean | null }>;
}

export type Sections = Pick<BenchResults, 'loader' | 'e2e' | 'noop' | 'rebuild' | 'memory' | 'embedded' | 'continued' | 'sites'>;

/** The issue's targets, judged against one run's figures (null where the section did not run). */
export function judge(r: Sections): BenchResults['targets'] {
  const t = (target: string, met: boolean | undefined) => ({ target, met: met ?? null });
  return {
    insertToCopy: t('>= 0.6', r.loader && r.loader.insertToCopy >= 0.6),
    updateToCopy: t('>= 0.4', r.loader && r.loader.updateToCopy >= 0.4),
    unchangedToCopy: t('>= 0.7', r.loader && r.loader.unchangedToCopy >= 0.7),
    speedupOverNaive: t('>= 20', r.loader && r.loader.speedupOverNaive >= 20),
    e2eWallToFloor: t('<= 1.5, requests = minRequests', r.e2e && r.e2e.wallToFloor <= 1.5 && r.e2e.requests === r.e2e.minRequests),
    pitwallCpuPerSimulator: t('<= 3.0', r.e2e?.cpuPerSimulator.pitwall == null ? undefined : r.e2e.cpuPerSimulator.pitwall <= 3.0),
    postgresCpuPerSimulator: t('<= 2.5', r.e2e?.cpuPerSimulator.postgres == null ? undefined : r.e2e.cpuPerSimulator.postgres <= 2.5),
    noop: t('0 rows written, wall/floor <= 1.1', r.noop && r.noop.rowsWritten === 0 && r.noop.wallToFloor <= 1.1),
    peakRss: t('<= 300 MB', r.memory && r.memory.peakRssMb <= 300),
    embeddedRatio: t('<= 1.15', r.embedded && r.embedded.ratio <= 1.15),
    embeddedPeakRss: t('<= 300 MB', r.embedded && r.embedded.peakRssMb <= 300),
    embeddedColdStart: t('<= 3000 ms', r.embedded && r.embedded.startMs.cold <= 3000),
    ...sitesTargets(r.sites),
    ...Object.fromEntries((r.continued ?? []).map((c) => [continuedKey(c), t(`<= ${c.target} x minimum, continued`, c.continued && c.ratio <= c.target)])),
    ...Object.fromEntries(
      (r.continued ?? []).flatMap((c) =>
        c.stop === 'restart' ? [[resumedKey(c), t(`<= ${c.resumeBoundMs} ms`, c.resumedMs !== null && c.resumedMs <= c.resumeBoundMs)]] : [],
      ),
    ),
  };
}

const continuedKey = (c: ContinuedFigures) => `continued_${c.scale}_${c.stop}_${c.at}`;
/** A restart case's second target: how soon the cut run was going again. */
const resumedKey = (c: ContinuedFigures) => `${continuedKey(c)}_resumed`;

/**
 * The sites section's targets, judged on its one-worker run: the makespan against its floor (or,
 * in a steady run, the requests per second against the global cap), connections, RSS per
 * worker, and coordination statements per upstream request. Connections are judged per worker.
 */
function sitesTargets(st: SitesFigures | undefined): BenchResults['targets'] {
  const t = (target: string, met: boolean | undefined) => ({ target, met: met ?? null });
  const one = st?.runs.find((run) => run.workers === 1);
  const rssCap = (st?.sites ?? 0) > 100 ? 400 : 300;
  return {
    sitesMakespan: t('<= 1.15 x floor', one && one.makespanMs !== null ? one.makespanMs <= 1.15 * one.floorMs : undefined),
    sitesSteadyRate: t(`>= 0.9 x ${st?.globalMaxRps ?? 0}/s`, one?.steady && st?.globalMaxRps ? one.steady.requestsPerSecond >= 0.9 * st.globalMaxRps : undefined),
    sitesConnections: t('<= 20 per worker', st?.runs.length ? st.runs.every((run) => run.peakConnections <= 20 * run.workers) : undefined),
    sitesPeakRss: t(`<= ${rssCap} MB`, one ? Math.max(...one.peakRssMbPerWorker) <= rssCap : undefined),
    // Judged on a run to the end (every first full), where each source's start-up is paid for by
    // its whole full; a steady window of a thousand sources' first minutes is mostly start-up.
    sitesCoordination: t('<= 0.05', one?.statements && !one.steady ? one.statements.perRequest <= 0.05 : undefined),
    // 0: it ran (no worker's full of the site was going then), 3: skipped beside the workers' run.
    sitesManualSync: t('0 or 3', st?.runs.some((run) => run.manualSync) ? st.runs.every((run) => !run.manualSync || [0, 3].includes(run.manualSync.exitCode ?? -1)) : undefined),
  };
}

const num = (n: number) => n.toLocaleString('en-US');

/** One line of the report: measure (indented two spaces per level under the line it details), value, target, met. */
export type ReportRow = [string, string, string, string];

/** The run's figures, one measure per row, with the target beside it where there is one. */
export function reportRows(r: BenchResults): ReportRow[] {
  const rows: ReportRow[] = [];
  const mark = (key: string): [string, string] => {
    const t = r.targets[key];
    return t ? [t.target, t.met === null ? '' : t.met ? 'yes' : 'NO'] : ['', ''];
  };
  const add = (measure: string, value: string, key?: string) => rows.push([measure, value, ...(key ? mark(key) : ['', ''] as [string, string])]);
  const { loader: l, e2e: e, noop: n, rebuild: rb, memory: m, embedded: em } = r;
  // Where the sync's time went: the three processes share the machine's cores.
  const addCpu = (s: { cpuMs: CpuSplit; cpuBoundMs: number | null }) => {
    const part = (ms: number | null) => (ms === null ? '?' : num(ms));
    add('  CPU ms: pitwall / simulator / PostgreSQL', `${part(s.cpuMs.pitwall)} / ${part(s.cpuMs.simulator)} / ${part(s.cpuMs.postgres)}`);
    if (s.cpuBoundMs !== null) add(`  that CPU over ${r.machine.cores} cores`, `${num(s.cpuBoundMs)} ms`);
  };
  if (l) {
    add(`loader rows (mrp.results, median of ${l.repetitions})`, num(l.rows));
    add('COPY into an empty table', `${num(l.copyRowsPerSec)} rows/s`);
    add('upsertRows into the empty table', `${num(l.insertRowsPerSec)} rows/s`);
    add('upsertRows, every row changed', `${num(l.updateRowsPerSec)} rows/s`);
    add('upsertRows, nothing changed', `${num(l.unchangedRowsPerSec)} rows/s`);
    add(`naive Drizzle upsert per row (${num(l.naiveRows)} rows)`, `${num(l.naiveRowsPerSec)} rows/s`);
    add('insert / COPY', l.insertToCopy.toFixed(2), 'insertToCopy');
    add('update / COPY', l.updateToCopy.toFixed(2), 'updateToCopy');
    add('unchanged / COPY', l.unchangedToCopy.toFixed(2), 'unchangedToCopy');
    add('speed-up over naive', `${l.speedupOverNaive.toFixed(1)}x`, 'speedupOverNaive');
  }
  if (e) {
    add(`full sync, ${e.scale} world, ${e.latencyMs} ms latency, concurrency ${e.concurrency}`, e.status);
    add('requests / minimum', `${num(e.requests)} / ${num(e.minRequests)}`);
    add('wall / floor', `${num(e.wallMs)} ms / ${num(e.floorMs)} ms`);
    add('wall / floor ratio', e.wallToFloor.toFixed(2), 'e2eWallToFloor');
    addCpu(e);
    const ratio = (x: number | null) => (x === null ? '?' : x.toFixed(2));
    add('  pitwall CPU per simulator CPU', ratio(e.cpuPerSimulator.pitwall), 'pitwallCpuPerSimulator');
    add('  PostgreSQL CPU per simulator CPU', ratio(e.cpuPerSimulator.postgres), 'postgresCpuPerSimulator');
    const pg = (x: number | null) => (x === null ? '?' : num(x));
    add('  CPU ms per 1,000 requests: pitwall / PostgreSQL', `${num(e.cpuPer1000Requests.pitwall)} / ${pg(e.cpuPer1000Requests.postgres)}`);
    add(`  CPU ms per 100,000 rows (${num(e.rowsWritten)} written): pitwall / PostgreSQL`, `${num(e.cpuPer100kRows.pitwall)} / ${pg(e.cpuPer100kRows.postgres)}`);
  }
  if (n) {
    add('no-op sync: rows written, requests', `${num(n.rowsWritten)}, ${num(n.requests)}`);
    add('no-op wall / floor', `${num(n.wallMs)} ms / ${num(n.floorMs)} ms = ${n.wallToFloor.toFixed(2)}`, 'noop');
    addCpu(n);
    add('  a bare fetch loop over the same requests', `${num(n.bareFetchWallMs)} ms = ${n.bareFetchToFloor.toFixed(2)} x floor`);
  }
  if (rb) {
    const pg = (x: number | null) => (x === null ? '?' : num(x));
    add(`rebuild of that warehouse: scopes, rows derived, rows written`, `${num(rb.scopes)}, ${num(rb.rows)}, ${num(rb.rowsWritten)}`);
    add('  wall; CPU ms: pitwall / PostgreSQL', `${num(rb.wallMs)} ms; ${num(rb.cpuMs.pitwall)} / ${pg(rb.cpuMs.postgres)}`);
    add('  CPU ms per 100,000 rows: pitwall / PostgreSQL', `${num(rb.cpuPer100kRows.pitwall)} / ${pg(rb.cpuPer100kRows.postgres)}`);
  }
  if (m) {
    const how = m.nodeOptions ? `${m.runtime}, NODE_OPTIONS=${m.nodeOptions}` : m.runtime;
    add(`peak RSS, full sync of the ${m.scale} world (${how})`, `${num(m.peakRssMb)} MB`, 'peakRss');
    add('  its result rows, requests, wall', `${num(m.resultRows)}, ${num(m.requests)}, ${num(m.wallMs)} ms`);
    if (m.withoutNodeOptions) {
      add('  the same without NODE_OPTIONS: peak RSS, wall', `${num(m.withoutNodeOptions.peakRssMb)} MB, ${num(m.withoutNodeOptions.wallMs)} ms`);
    }
  }
  for (const c of r.continued ?? []) {
    const at = `${Math.round(c.at * 100)} %`;
    if (c.stop === 'restart') {
      add(`${c.scale} full of a worker, PostgreSQL restarted at ${at}, then continued: requests`, `${num(c.requests)} / ${num(c.minRequests)} = ${c.ratio.toFixed(3)}`, continuedKey(c));
      add('  the continuation began after the server answered', c.resumedMs === null ? 'none' : `${num(c.resumedMs)} ms`, resumedKey(c));
    } else {
      add(`${c.scale} full stopped by ${c.stop} at ${at}, then continued: requests`, `${num(c.firstRequests)} + ${num(c.secondRequests)} / ${num(c.minRequests)} = ${c.ratio.toFixed(3)}`, continuedKey(c));
    }
  }
  if (em) {
    add(`embedded warehouse: full sync of the ${em.scale} world, median of ${em.runs}`, `${num(em.wallMs)} ms`);
    add('  the same sync into the PostgreSQL server', `${num(em.serverWallMs)} ms`);
    add('  embedded / server wall', em.ratio.toFixed(2), 'embeddedRatio');
    const how = em.nodeOptions ? `${em.runtime}, NODE_OPTIONS=${em.nodeOptions}` : em.runtime;
    add(`  peak RSS of pitwall, ${em.memoryScale} world, embedded (${how})`, `${num(em.peakRssMb)} MB`, 'embeddedPeakRss');
    add('  the embedded server beside it (PSS), wall', `${num(em.serverRssMb)} MB, ${num(em.memoryWallMs)} ms`);
    add('  server start: cold (initdb + start)', `${num(em.startMs.cold)} ms`, 'embeddedColdStart');
    add('  server start: warm', `${num(em.startMs.warm)} ms`);
  }
  if (r.sites) {
    const st = r.sites;
    const cap = st.globalMaxRps ? `, ${st.globalMaxRps}/s in all` : '';
    add(`${st.sites} ${st.scale} sites at ${st.maxRps} requests/s each${cap}, full syncs from empty`, `${st.workerJobs} jobs per worker`);
    add('  the workers run', st.runtime === 'dist' ? `compiled${st.nodeOptions ? `, NODE_OPTIONS=${st.nodeOptions}` : ''}` : 'through tsx');
    for (const run of st.runs) {
      if (run.steady) {
        add(`  ${run.workers} worker(s): requests/s at the upstream over ${num(run.steady.windowMs)} ms`, num(run.steady.requestsPerSecond), run.workers === 1 ? 'sitesSteadyRate' : undefined);
      } else {
        add(`  ${run.workers} worker(s): makespan (floor ${num(run.floorMs)} ms)`, `${num(run.makespanMs ?? 0)} ms`, run.workers === 1 ? 'sitesMakespan' : undefined);
      }
      if (run.upstreamSpan) add('    first and last request at the upstream, from the start', `${num(run.upstreamSpan.firstMs)} - ${num(run.upstreamSpan.lastMs)} ms`);
      add('    requests per source / its minimum', `${run.requestsToMinimum.min.toFixed(2)} - ${run.requestsToMinimum.max.toFixed(2)}`);
      add('    busiest second of one key', `${run.peakPerSecond} (cap ${st.maxRps})`);
      add('    peak RSS per worker', run.peakRssMbPerWorker.map((mb) => `${mb} MB`).join(', '), run.workers === 1 ? 'sitesPeakRss' : undefined);
      add('    database connections in use, peak', num(run.peakConnections), 'sitesConnections');
      if (run.manualSync) add('    a manual sync of one site beside them: exit code', String(run.manualSync.exitCode), 'sitesManualSync');
      if (run.statements) {
        add('    coordination statements per upstream request', `${run.statements.perRequest} (${num(run.statements.coordination)} for ${num(run.upstreamRequests)})`, run.workers === 1 ? 'sitesCoordination' : undefined);
        add('    load statements per upstream request', (run.statements.load / Math.max(1, run.upstreamRequests)).toFixed(2));
        add('    fence statements per upstream request (one per load transaction)', (run.statements.fence / Math.max(1, run.upstreamRequests)).toFixed(2));
      }
    }
  }
  return rows;
}

/** The machine and the moment a run was made on, as one line: every figure depends on them. */
export function runHeading(r: BenchResults): string {
  const { machine: mc } = r;
  const load = (l: Machine['loadAverage']) => `load average ${l.start.toFixed(1)} -> ${l.end.toFixed(1)}`;
  const reruns = (r.reruns ?? []).map((re) => `; ${re.sections.join(', ')} run again alone ${re.startedAt}, ${load(re.loadAverage)}`);
  return `pitwall bench (${r.mode}), ${r.startedAt}: ${mc.cores} cores, Node ${mc.node}, PostgreSQL ${mc.postgres}, ${load(mc.loadAverage)}${reruns.join('')}`;
}

/** The run as a plain-text table, one measure per line, with the target beside it where there is one. */
export function renderReport(r: BenchResults): string {
  const rows = reportRows(r);
  const head: ReportRow = ['measure', 'value', 'target', 'met'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 1 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [
    runHeading(r),
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
  ].join('\n');
}
