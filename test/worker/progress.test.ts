import { describe, expect, it } from 'vitest';

import { createProgressReporter, LOG_INTERVAL_MS, progressFigures, progressText } from '../../src/commands/progress.js';
import { createLogger } from '../../src/log.js';
import { RunCounters } from '../../src/sync/counters.js';

const counters = () => {
  const c = new RunCounters();
  c.add('results', { inserted: 100, updated: 20, unchanged: 500, deleted: 3 });
  return c;
};

describe('sync progress', () => {
  it('reports requests of the known total, rows written, rate and ETA', () => {
    const f = progressFigures({ discovered: 400, done: 100, counters: counters() }, 20_000);
    expect(f).toEqual({ done: 100, total: 400, rowsWritten: 123, perSecond: 5, etaSeconds: 60 });
    expect(progressText(f)).toBe('100/400 requests · 123 rows written · 5.0 req/s · ETA 1:00');
  });

  it('has no ETA before the first request finished', () => {
    expect(progressText(progressFigures({ discovered: 5, done: 0, counters: new RunCounters() }, 1_000))).toMatch(/ETA \?$/);
  });

  it('redraws one terminal line in place and clears it at the end', () => {
    let now = 0;
    const out: string[] = [];
    const p = createProgressReporter({ interactive: true, write: (t) => out.push(t), logger: createLogger({ level: 'silent' }), now: () => now });
    now = 1_000;
    p.update({ discovered: 10, done: 5, counters: counters() });
    now = 1_010;
    p.update({ discovered: 10, done: 6, counters: counters() });
    p.finish();
    expect(out).toEqual(['\r\x1b[2K5/10 requests · 123 rows written · 5.0 req/s · ETA 0:01', '\r\x1b[2K']);
  });

  it('off a terminal, logs a progress line at most every 10 seconds', () => {
    let now = 0;
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ destination: { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) } });
    const p = createProgressReporter({ interactive: false, write: undefined, logger, now: () => now });
    for (now = 0; now <= 3 * LOG_INTERVAL_MS; now += 500) p.update({ discovered: 100, done: now / 1000, counters: counters() });
    expect(lines.map((l) => l.msg)).toEqual(['progress', 'progress', 'progress']);
    expect(lines[0]).toMatchObject({ done: 10, total: 100, rowsWritten: 123 });
  });
});
