import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runCli } from '../helpers/cli.js';
import { useWarehouse } from '../helpers/fixture.js';
import { startShapeProxy, type ShapeProxy } from '../helpers/shape-proxy.js';

describe('pitwall drift', () => {
  let proxy: ShapeProxy;
  let env: Record<string, string>;
  let marked = 0;
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 3 });
  beforeAll(async () => {
    // Standings rows gain a field pitwall does not model (not those of bodies with the `,,`
    // defect, which the proxy cannot parse and passes on unchanged).
    proxy = await startShapeProxy(sim.url, (path, body) => {
      if (path !== '/v2/points/') return body;
      for (const row of (body as { Points: Array<Record<string, unknown>> }).Points) {
        row.Hometown = 'Eldora';
        marked += 1;
      }
      return body;
    });
    env = { DATABASE_URL: db.url, MRP_API_BASE_URL: proxy.url, MRP_API_KEY: sim.key, PITWALL_MAX_RPS: '0' };
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('prints what differs per endpoint, as text and as JSON, and status sums it up in one line', async () => {
    expect((await runCli(['migrate'], env)).code).toBe(0);
    const sync = await runCli(['sync', '--json'], env);
    expect(sync.code).toBe(0);
    expect(JSON.parse(sync.stdout).unknownFields).toEqual({ point_standings: 1 });
    // The first sight of the field is logged once, with endpoint and path.
    expect(sync.stderr.match(/Points\[\]\.Hometown/g)).toHaveLength(1);
    const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM mrp.point_standings`);

    const text = await runCli(['drift'], env);
    expect(text.code).toBe(0);
    expect(marked).toBeGreaterThan(0);
    expect(text.stdout).toMatch(new RegExp(`Points\\[\\]\\.Hometown\\s+string\\s+${marked}\\s+${rows[0]!.n}\\s+"Eldora"`));
    expect(text.stdout).toMatch(/^results \(\d+ response\(s\)\): as modelled$/m);

    const json = JSON.parse((await runCli(['drift', '--json'], env)).stdout) as { endpoints: Array<{ endpoint: string; unmodelled: unknown[] }> };
    expect(json.endpoints.find((e) => e.endpoint === 'point_standings')!.unmodelled).toEqual([
      { path: 'Points[].Hometown', seen: marked, of: rows[0]!.n, types: ['string'], example: '"Eldora"', keptIn: 'mrp.point_standings.raw' },
    ]);

    const status = await runCli(['status'], env);
    expect(status.stdout).toContain('Drift: 1 unmodelled, 0 missing, 0 failing field(s) in point_standings; see pitwall drift');
  });
});
