import { beforeAll, describe, expect, it } from 'vitest';

import { startSimulator } from '../../src/simulator/server.js';
import { runCli } from '../helpers/cli.js';
import { useDatabase } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';

describe('pitwall rebuild', () => {
  const db = useDatabase();
  let loaded: number;
  beforeAll(async () => {
    // Rebuild needs no upstream: the simulator is gone before any test runs.
    const sim = await startSimulator({ scale: 'tiny', seed: 21 });
    try {
      const summary = await syncOnce(db, sim);
      expect(summary.status).toBe('succeeded');
      loaded = summary.scopes.loaded;
    } finally {
      await sim.close();
    }
  });

  it('rebuilds from the kept bodies without an API key, printing the sync summary as JSON', async () => {
    const r = await runCli(['rebuild', '--json'], { DATABASE_URL: db.url });
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as { job: string; status: string; requests: number; scopes: { loaded: number }; tables: Record<string, unknown> };
    expect(summary).toMatchObject({ job: 'rebuild', status: 'succeeded', requests: 0, scopes: { loaded } });
    expect(Object.keys(summary.tables)).toContain('results');
  });

  it('rebuilds only the endpoints named, and says so for a person', async () => {
    const r = await runCli(['rebuild', '--endpoint', 'point_classes', '--endpoint', 'point_years'], { DATABASE_URL: db.url });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^run \d+ \(rebuild\): succeeded/);
    expect(r.stdout).toMatch(/point_classes/);
    expect(r.stdout).not.toMatch(/results/);
  });

  it('refuses an endpoint it does not know, exit 2', async () => {
    const r = await runCli(['rebuild', '--endpoint', 'resluts'], { DATABASE_URL: db.url });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('resluts');
  });
});
