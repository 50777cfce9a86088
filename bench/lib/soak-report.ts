import type { BiFailure } from './soak-bi-client.js';
import type { Exit } from './soak-process.js';
import type { RunReport } from './soak-runs.js';
import { growthOf, type Growth, type Measure, type Sample } from './soak-samples.js';

export interface SoakFigures {
  startedAt: string;
  minutes: number;
  scale: string;
  seed: number;
  faultRate: number;
  machine: { cores: number; node: string; loadAverage: { start: number; end: number } };
  /** Milliseconds since the start: the kill -9, and when the restarted worker logged "worker started". */
  kill: {
    atMs: number | null;
    restartedAtMs: number | null;
    windowEndMs: number | null;
    /** The run the kill interrupted, `job #id`; null when none was going. */
    duringRun: string | null;
  };
  runs: RunReport;
  /** Days the simulator's clock moved; when faults stopped, and whether one last run of every job then succeeded. */
  final: { daysAdvanced: number; faultsOffAtMs: number | null; lastRunsSucceeded: boolean; waitedMs: number };
  bi: { recipe: string; queries: number; reconnects: number; failures: BiFailure[]; failuresOutsideRestart: number; rowsLastSeen: number };
  samples: Sample[];
  growth: Record<string, { rssMb: Growth; fds: Growth; dbConnections: Growth }>;
  truth: { matches: boolean; differences: Record<string, unknown> };
  /** Processes that ended before the soak stopped them, and how. */
  unexpectedExits: Array<{ name: string } & Exit>;
  /** After the final SIGTERM: PostgreSQL processes of the warehouse, and `clients/` entries. */
  leftovers: { postgresPids: number[]; clientEntries: string[] };
  targets: Record<string, { target: string; met: boolean | null }>;
}

export const WARMUP_MS = 120_000;
/** A life shorter than this after its warm-up is not judged: too few minutes to tell a leak. */
export const MIN_JUDGED_MS = 180_000;
export const GROWTH_LIMIT = 0.1;
/**
 * Growth within this much, absolute, is no growth whatever its percentage: on small counts one
 * step is a large share (7 -> 9 connections is +28.6%) and is the pool or the kernel at work,
 * not a leak. Connections move within the pool's size as jobs overlap; descriptors with them
 * (a socket each, plus the log and the listening one).
 */
export const GROWTH_MARGIN: Record<Measure, number> = { rssMb: 0, fds: 8, dbConnections: 4 };

/** Whether `g` grew past both the relative limit and its measure's absolute margin; null when unjudged. */
export function grew(g: Growth, measure: Measure): boolean | null {
  if (g.growth === null) return null;
  return g.growth >= GROWTH_LIMIT && g.late - g.early > GROWTH_MARGIN[measure];
}

export function growthByLife(samples: readonly Sample[]): SoakFigures['growth'] {
  const lives = [...new Set(samples.map((s) => s.life))];
  return Object.fromEntries(
    lives.map((life) => [
      `worker ${life}`,
      {
        rssMb: growthOf(samples, life, 'rssMb', WARMUP_MS, MIN_JUDGED_MS),
        fds: growthOf(samples, life, 'fds', WARMUP_MS, MIN_JUDGED_MS),
        dbConnections: growthOf(samples, life, 'dbConnections', WARMUP_MS, MIN_JUDGED_MS),
      },
    ]),
  );
}

/** No measure of any worker's life grew (see grew); null when none could be judged. */
export function resourcesFlat(growth: SoakFigures['growth']): boolean | null {
  const measures: Measure[] = ['rssMb', 'fds', 'dbConnections'];
  const judged = Object.values(growth).flatMap((g) => measures.map((m) => grew(g[m], m))).filter((v) => v !== null);
  return judged.length === 0 ? null : judged.every((v) => !v);
}

/** The issue's targets against one soak's figures; null where a target could not be judged. */
export function judge(f: Omit<SoakFigures, 'targets'>): SoakFigures['targets'] {
  return {
    workerRestarted: { target: 'kill -9 halfway, worker restarted', met: f.kill.atMs !== null && f.kill.restartedAtMs !== null },
    noUnexpectedExit: { target: 'no process exits by itself', met: f.unexpectedExits.length === 0 },
    everyJobSucceeds: { target: 'each job succeeds, last runs too', met: f.final.lastRunsSucceeded },
    noRunLeftRunning: { target: 'no run left running after the stop', met: f.runs.all.running === 0 },
    biFailures: { target: '0 failed BI queries outside the restart', met: f.bi.failuresOutsideRestart === 0 && f.bi.queries > 0 },
    resourcesFlat: {
      target: `growth < ${GROWTH_LIMIT * 100}% or within +${GROWTH_MARGIN.dbConnections} conns, +${GROWTH_MARGIN.fds} fds, after ${WARMUP_MS / 60_000} min warm-up`,
      met: resourcesFlat(f.growth),
    },
    warehouseEqualsTruth: { target: 'warehouse = simulator truth', met: f.truth.matches },
    nothingLeftBehind: { target: 'no postgres process, no clients/ entry', met: f.leftovers.postgresPids.length === 0 && f.leftovers.clientEntries.length === 0 },
  };
}

const TARGET_WIDTH = 64;
const mark = (met: boolean | null) => (met === null ? 'n/a' : met ? 'yes' : 'NO');
const pct = (g: Growth) => `${g.growth! >= 0 ? '+' : ''}${(g.growth! * 100).toFixed(1)}%`;
const min = (ms: number | null) => (ms === null ? '-' : `${(ms / 60_000).toFixed(1)} min`);

/** The soak as plain text: the figures, one sample per minute, and the targets. */
export function renderSoak(f: SoakFigures): string {
  const out: string[] = [];
  const mc = f.machine;
  out.push(
    `pitwall soak, ${f.startedAt}: ${f.minutes} min, ${f.scale} world (seed ${f.seed}), ${f.faultRate * 100}% faults; ` +
      `${mc.cores} cores, Node ${mc.node}, load average ${mc.loadAverage.start.toFixed(1)} -> ${mc.loadAverage.end.toFixed(1)}`,
  );
  out.push('', 'runs        started  succeeded  failed  abandoned  interrupted  running  skipped  retried to success  not recovered');
  for (const [job, c] of Object.entries(f.runs)) {
    out.push(
      `${job.padEnd(10)} ${[c.started, c.succeeded, c.failed, c.abandoned, c.interrupted, c.running, c.skipped].map((n, i) => String(n).padStart([8, 10, 7, 10, 12, 8, 8][i]!)).join(' ')}` +
        ` ${String(c.retriedToSuccess).padStart(19)} ${String(c.notRecovered).padStart(14)}`,
    );
  }
  out.push('', `kill -9 of the worker at ${min(f.kill.atMs)} (${f.kill.duringRun ? `during run ${f.kill.duringRun}` : 'no run going'}), restarted worker up at ${min(f.kill.restartedAtMs)}, restart window until ${min(f.kill.windowEndMs)}`);
  out.push(`the simulator's clock moved ${f.final.daysAdvanced} days; faults off at ${min(f.final.faultsOffAtMs)}; a last run of every job succeeded: ${f.final.lastRunsSucceeded ? 'yes' : 'no'} (waited ${min(f.final.waitedMs)})`);
  out.push(
    `BI session (${f.bi.recipe} every 10 s): ${f.bi.queries} queries, ${f.bi.failures.length} failed ` +
      `(${f.bi.failuresOutsideRestart} outside the restart window), ${f.bi.reconnects} reconnects, ${f.bi.rowsLastSeen} rows last seen`,
  );
  for (const fail of f.bi.failures.slice(0, 5)) out.push(`  failed at ${min(fail.atMs)}: ${fail.error}`);
  // Highs per minute: a 10-second sample often falls between runs, when the pool is idle.
  out.push('', 'minute  worker  pid      RSS MB  fds  worker db conns  server sessions   (highest of the minute\'s samples)');
  const perMinute = new Map<string, Sample[]>();
  for (const s of f.samples) {
    const key = `${Math.floor(s.atMs / 60_000)}:${s.life}`;
    perMinute.set(key, [...(perMinute.get(key) ?? []), s]);
  }
  for (const ss of perMinute.values()) {
    const m = Math.floor(ss[0]!.atMs / 60_000);
    const high = (k: 'rssMb' | 'fds' | 'dbConnections' | 'serverSessions') => String(Math.max(...ss.map((s) => s[k])));
    const last = ss.at(-1)!;
    out.push(`${String(m + 1).padStart(6)}  ${String(last.life).padStart(6)}  ${String(last.pid).padEnd(7)} ${high('rssMb').padStart(6)} ${high('fds').padStart(4)} ${high('dbConnections').padStart(16)} ${high('serverSessions').padStart(16)}`);
  }
  for (const [life, g] of Object.entries(f.growth)) {
    const show = (m: Measure, unit = '') => {
      const x = g[m];
      if (x.growth === null) return 'not judged';
      const within = x.growth >= GROWTH_LIMIT && !grew(x, m) ? `, within the +${GROWTH_MARGIN[m]} margin` : '';
      return `${x.early} -> ${x.late}${unit} (${pct(x)}${within})`;
    };
    out.push(`${life}, highs of the first and last third after warm-up: RSS ${show('rssMb', ' MB')}, fds ${show('fds')}, db conns ${show('dbConnections')}`);
  }
  if (Object.values(f.growth).some((g) => g.rssMb.growth === null)) {
    out.push(`  (a worker's life is judged when it lasts ${(WARMUP_MS + MIN_JUDGED_MS) / 60_000} min or more: ${WARMUP_MS / 60_000} min warm-up, then ${MIN_JUDGED_MS / 60_000} min)`);
  }
  out.push('', `warehouse equals the simulator's truth: ${f.truth.matches ? 'yes' : 'no'}`);
  if (!f.truth.matches) out.push(JSON.stringify(f.truth.differences, null, 2).slice(0, 3000));
  for (const e of f.unexpectedExits) out.push(`${e.name} exited by itself at ${min(e.atMs)}: code ${e.code}, signal ${e.signal}`);
  out.push(`after the final SIGTERM: ${f.leftovers.postgresPids.length} PostgreSQL processes (${f.leftovers.postgresPids.join(' ') || 'none'}), ` +
    `${f.leftovers.clientEntries.length} clients/ entries (${f.leftovers.clientEntries.join(' ') || 'none'})`);
  out.push('', `${'target'.padEnd(TARGET_WIDTH)}  met`);
  for (const t of Object.values(f.targets)) out.push(`${t.target.padEnd(TARGET_WIDTH)}  ${mark(t.met)}`);
  return out.join('\n');
}
