import type { Logger } from '../log.js';
import { rowsWritten, type RunCounters } from '../sync/counters.js';

/** What runSync's onProgress reports: requests known so far, requests finished, and the run's counters. */
export interface ProgressEvent {
  discovered: number;
  done: number;
  counters: RunCounters;
}

export interface ProgressFigures {
  done: number;
  /** The known total: it grows as the walk discovers children. */
  total: number;
  rowsWritten: number;
  /** Finished requests per second since the run started. */
  perSecond: number;
  /** Seconds left at the current rate for the requests known so far; null before any finished. */
  etaSeconds: number | null;
}

export function progressFigures(p: ProgressEvent, elapsedMs: number): ProgressFigures {
  const perSecond = elapsedMs > 0 ? (p.done * 1000) / elapsedMs : 0;
  const left = Math.max(0, p.discovered - p.done);
  return {
    done: p.done,
    total: p.discovered,
    rowsWritten: rowsWritten(p.counters.tables),
    perSecond,
    etaSeconds: perSecond > 0 ? Math.round(left / perSecond) : null,
  };
}

const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;

/** One line for a terminal: `142/390 requests · 12345 rows written · 8.1 req/s · ETA 0:31`. */
export function progressText(f: ProgressFigures): string {
  return [
    `${f.done}/${f.total} requests`,
    `${f.rowsWritten} rows written`,
    `${f.perSecond.toFixed(1)} req/s`,
    `ETA ${f.etaSeconds === null ? '?' : clock(f.etaSeconds)}`,
  ].join(' · ');
}

/** A terminal line is redrawn at most this often; more would only cost CPU. */
export const TERMINAL_INTERVAL_MS = 100;
/** Off a terminal, a progress log line at most this often, so a long run's log stays readable. */
export const LOG_INTERVAL_MS = 10_000;

export interface ProgressReporter {
  update(p: ProgressEvent): void;
  /** Clears the terminal line so the summary prints on a clean line. */
  finish(): void;
}

/**
 * Live progress for `pitwall sync`: a line redrawn in place on a terminal (`write` is stderr), or
 * throttled `progress` log lines elsewhere (CI, a scheduler, a pipe).
 */
export function createProgressReporter(opts: {
  interactive: boolean;
  write: ((text: string) => void) | undefined;
  logger: Logger;
  /** Milliseconds, monotonic. */
  now?: () => number;
}): ProgressReporter {
  const now = opts.now ?? (() => performance.now());
  const started = now();
  const terminal = opts.interactive && opts.write !== undefined;
  const interval = terminal ? TERMINAL_INTERVAL_MS : LOG_INTERVAL_MS;
  let last = started;
  let drawn = false;
  return {
    update: (p) => {
      const t = now();
      if (t - last < interval) return;
      last = t;
      const figures = progressFigures(p, t - started);
      if (terminal) {
        opts.write?.(`\r\x1b[2K${progressText(figures)}`);
        drawn = true;
      } else {
        opts.logger.info({ ...figures, perSecond: Number(figures.perSecond.toFixed(2)) }, 'progress');
      }
    },
    finish: () => {
      if (drawn) opts.write?.('\r\x1b[2K');
      drawn = false;
    },
  };
}
