import { describe, expect, it } from 'vitest';

import { loadStatus, statusText } from '../../src/commands/status-report.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { loadStatusPage } from '../../src/observability/status-page/data.js';
import { renderStatusPage } from '../../src/observability/status-page/html.js';
import { loadSetAside, recordScopeFailure, recordScopeSuccess, scopeKey, type ScopeFailureAt } from '../../src/sync/sql/sync-state.js';
import { useDatabase } from '../helpers/fixture.js';

/** The rule that sets a scope aside, against real PostgreSQL: runs are told apart by their id. */
describe('a scope failing run after run', () => {
  const db = useDatabase('postgres');
  let scope = 0;
  /** A fresh scope's failures in the runs given, each of one kind. */
  async function fail(runs: Array<[runId: number, kind: string]>, more: Partial<ScopeFailureAt> = {}) {
    const params = `EventId=${(scope += 1)}`;
    let until: Date | null = null;
    for (const [runId, kind] of runs) {
      until = await recordScopeFailure(db.pool, {
        runId, source: 'default', endpoint: 'results', params, status: 'error', error: `results: receive: ${kind}`,
        stage: 'receive', kind, asideAfterRuns: 2, setAsideHours: 24, ...more,
      });
    }
    return { params, until };
  }

  it('is set aside for PITWALL_SET_ASIDE_HOURS after the same lasting kind in two runs in a row', async () => {
    const { params, until } = await fail([[1, 'too-large'], [2, 'too-large']]);
    expect(until).not.toBeNull();
    expect(Math.round((until!.getTime() - Date.now()) / 3_600_000)).toBe(24);
    expect((await loadSetAside(db.pool, 'default')).has(scopeKey('results', params))).toBe(true);
    expect((await loadSetAside(db.pool, 'other')).size).toBe(0);
  });

  it('is not for one run failing it twice, two kinds, a passing fault, or PITWALL_SET_ASIDE_HOURS=0', async () => {
    expect((await fail([[1, 'too-large'], [1, 'too-large']])).until).toBeNull();
    expect((await fail([[1, 'too-large'], [2, 'slow-body']])).until).toBeNull();
    expect((await fail([[1, 'http 503'], [2, 'http 503'], [3, 'http 503']], { asideAfterRuns: 0 })).until).toBeNull();
    expect((await fail([[1, 'too-large'], [2, 'too-large']], { setAsideHours: 0 })).until).toBeNull();
  });

  it('comes back after one success, and is listed by status and the metrics while set aside', async () => {
    const back = await fail([[1, 'http 404'], [2, 'http 404']]);
    await recordScopeSuccess(db.pool, { runId: 3, source: 'default', endpoint: 'results', params: back.params, responseHash: 'h', itemCount: 1 });
    expect((await loadSetAside(db.pool, 'default')).has(scopeKey('results', back.params))).toBe(false);
    expect((await fail([[4, 'http 404']])).until).toBeNull();

    const aside = await fail([[5, 'decode'], [6, 'decode']], { stage: 'decode' });
    const [report] = await loadStatus(db.pool);
    expect(report!.set_aside.map((s) => s.params)).toContain(aside.params);
    expect(statusText(report!)).toMatch(new RegExp(`Set aside[^\\n]*retry-set-aside[\\s\\S]*results +${aside.params} +decode \\(decode\\) +2 `));
    const page = await loadStatusPage(db.pool, { secrets: [] });
    expect(page.set_aside.find((s) => s.params === aside.params)).toMatchObject({ failure_kind: 'decode', failed_runs: 2 });
    expect(renderStatusPage(page)).toMatch(new RegExp(`<h2>Set aside</h2>[\\s\\S]*${aside.params}</td><td>decode \\(decode\\)</td>`));
    const metrics = createMetrics(db.pool);
    const gauge = await metrics.registry.getSingleMetricAsString('pitwall_set_aside_scopes');
    expect(gauge).toMatch(/^pitwall_set_aside_scopes\{source="default",endpoint="results",kind="decode"\} 1$/m);
  });
});
