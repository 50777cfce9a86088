import { beforeAll, describe, expect, it } from 'vitest';

import { FAULT_KINDS } from '../../src/simulator/options.js';
import { useDatabase } from '../helpers/fixture.js';

import { runChaos, type ChaosReport } from './helpers/chaos.js';

/**
 * A quarter of all upstream requests faulted, every kind mixed (see helpers/chaos.ts for the
 * mix), and the sync re-run until it reports success: the warehouse must then equal the
 * fault-free ground truth, table by table, with nothing missing and nothing twice.
 */

const SOAK = Boolean(process.env.PITWALL_SOAK);

let report: ChaosReport;
const db = useDatabase();
beforeAll(async () => {
  report = await runChaos({ db, scale: SOAK ? 'small' : 'tiny', seed: 31, rate: 0.25, maxRuns: SOAK ? 40 : 12 });
}, 300_000);

describe('a sync under chaos', () => {
  it('meets at least 20% faulted requests, of every kind', () => {
    const faulted = Object.values(report.faults).reduce((a, b) => a + b, 0);
    expect(faulted / report.requests).toBeGreaterThanOrEqual(0.2);
    for (const kind of FAULT_KINDS) expect(report.faults[kind], kind).toBeGreaterThan(0);
    expect(report.retries).toBeGreaterThan(0);
  });

  it('reports success within the bound on runs', () => {
    // On failure, say how each run ended and why, so that a CI log can tell a fault from a flake.
    const runs = report.runs.map((r) => ({ status: r.status, scopes: r.scopes, error: r.error }));
    expect(report.runsNeeded, JSON.stringify(runs)).not.toBeNull();
  });

  it('leaves a warehouse equal to the ground truth, every table, no duplicates', () => {
    expect(report.differences).toEqual({});
    expect(report.warehouse).toEqual(report.truth);
    expect(report.matches).toBe(true);
  });

  it('leaves no run marked running and files nothing in rejects: every fault was survived, not swallowed', () => {
    expect(report.stuckRuns).toBe(0);
    expect(report.rejects).toBe(0);
    expect(report.runs.every((r) => ['succeeded', 'failed'].includes(r.status))).toBe(true);
  });
});
