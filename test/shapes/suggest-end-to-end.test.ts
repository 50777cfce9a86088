import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { runCli } from '../helpers/cli.js';
import { BACKENDS } from '../helpers/db.js';
import { useResource, useWarehouse } from '../helpers/fixture.js';
import { startShapeProxy, type ShapeTransform } from '../helpers/shape-proxy.js';
import { syncOnce } from '../helpers/sync.js';
import { diffAgainstTruth, fetchTruth } from '../helpers/warehouse.js';

/** Rewrites `field` of every object in a body, wherever it sits. */
function rewriteField(body: unknown, field: string, change: (v: unknown, obj: Record<string, unknown>) => void): unknown {
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v !== null && typeof v === 'object') {
      const obj = v as Record<string, unknown>;
      if (Object.hasOwn(obj, field)) change(obj[field], obj);
      Object.values(obj).forEach(visit);
    }
  };
  visit(body);
  return body;
}

/** `5/11/2015 7:30:00 PM` as `2015-05-11T19:30:00`. */
function isoOf(us: string): string {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AP]M)?)?$/i.exec(us.trim());
  if (!m) return us;
  const [, mo, d, y, h = '0', mi = '00', s = '00', ap] = m;
  let hour = Number(h);
  if (ap) hour = (hour % 12) + (ap.toUpperCase() === 'PM' ? 12 : 0);
  const p = (n: number | string) => String(n).padStart(2, '0');
  return `${y}-${p(mo!)}-${p(d!)}T${p(hour)}:${mi}:${s}`;
}

interface Case {
  name: string;
  path: string;
  transform: (body: unknown) => unknown;
  /** The entry `drift --suggest` must write: endpoint, level, field and what it holds. */
  expected: Record<string, Record<string, Record<string, unknown>>>;
}

const CASES: Case[] = [
  {
    name: 'a renamed field',
    path: '/v2/schedules/results/',
    transform: (b) => JSON.parse(JSON.stringify(b).replaceAll('"ResultStart":', '"StartPos":')),
    expected: { results: { 'Classes[].Races[].Results[]': { ResultStart: { aliases: ['StartPos'] } } } },
  },
  {
    name: 'a decimal sent with a unit',
    path: '/v2/schedules/driverStats/',
    transform: (b) => rewriteField(b, 'AvgStart', (v, o) => (o.AvgStart = v === null || v === '' ? v : `${String(v)} avg`)),
    expected: { driver_stats: { 'DriverStats[]': { AvgStart: { coerce: [{ stripSuffix: ' avg' }] } } } },
  },
  {
    name: 'a flag sent as X and -',
    path: '/v2/schedules/results/',
    transform: (b) =>
      rewriteField(b, 'ResultDNF', (v, o) => (o.ResultDNF = v === true || v === 1 || v === '1' || String(v).toLowerCase() === 'true' ? 'X' : '-')),
    expected: { results: { 'Classes[].Races[].Results[]': { ResultDNF: { coerce: [{ booleans: { true: ['X'], false: ['-'] } }] } } } },
  },
  {
    name: 'a date in another format',
    path: '/v2/schedules/events/',
    transform: (b) => rewriteField(b, 'EventDate', (v, o) => (o.EventDate = typeof v === 'string' && v ? isoOf(v) : v)),
    expected: { events: { 'ScheduleEvents[]': { EventDate: { coerce: [{ dateFormat: 'YYYY-MM-DDTHH:mm:ss' }] } } } },
  },
];

const dir = mkdtempSync(join(tmpdir(), 'pitwall-shapes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(CASES)('$name, through a proxy in front of the simulator', (c) => {
  const backends = c.name === 'a renamed field' ? BACKENDS : (['postgres'] as const);
  describe.each(backends)('on %s', (backend) => {
    const { db, sim } = useWarehouse(backend, { scale: 'tiny', seed: 31 });
    const transform: ShapeTransform = (path, body) => (path === c.path ? c.transform(body) : undefined);
    let proxyOpen = false;
    const proxy = useResource(
      'changing proxy',
      async () => {
        const p = await startShapeProxy(sim.url, transform);
        proxyOpen = true;
        return p;
      },
      (p) => (proxyOpen ? p.close() : undefined),
    );
    const env = () => ({ DATABASE_URL: db.url, PITWALL_LOG_LEVEL: 'warn' });
    const file = join(dir, `${c.name.replaceAll(' ', '-')}-${backend}.json`);

    it('is suggested by drift --suggest after a sync, and a rebuild with it, the upstream stopped, equals the truth', async () => {
      const truth = await fetchTruth(sim.url);
      expect((await syncOnce(db, { ...sim, url: proxy.url } as typeof sim)).status).toBe('succeeded');
      expect(Object.keys(await diffAgainstTruth(db.pool, truth)).length).toBeGreaterThan(0);

      const suggested = await runCli(['drift', '--suggest'], env());
      expect(suggested.code, suggested.stderr).toBe(0);
      expect(JSON.parse(suggested.stdout)).toEqual({ version: 1, endpoints: c.expected });
      writeFileSync(file, suggested.stdout);

      await proxy.close();
      proxyOpen = false;
      await sim.close();
      const rebuilt = await runCli(['rebuild', '--json'], { ...env(), PITWALL_SHAPES: file });
      expect(rebuilt.code, rebuilt.stderr).toBe(0);
      expect(JSON.parse(rebuilt.stdout)).toMatchObject({ status: 'succeeded', requests: 0 });
      expect(await diffAgainstTruth(db.pool, truth)).toEqual({});
      expect((await db.pool.query('SELECT 1 FROM pitwall.field_errors')).rowCount).toBe(0);
      const { rows } = await db.pool.query<{ shapes_file: string; shapes_digest: string }>(
        `SELECT shapes_file, shapes_digest FROM pitwall.sync_runs WHERE job = 'rebuild' ORDER BY run_id DESC LIMIT 1`,
      );
      expect(rows[0]).toMatchObject({ shapes_file: file, shapes_digest: expect.stringMatching(/^[0-9a-f]{64}$/) });
    });
  });
});

describe('a shapes file set after a sync', () => {
  const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 32 });
  const proxy = useResource('renaming proxy', () => startShapeProxy(sim.url, (path, body) => (path === CASES[0]!.path ? CASES[0]!.transform(body) : undefined)), (p) => p.close());

  it('makes the next sync derive the unchanged bodies it affects again, and only those', async () => {
    const through = { ...sim, url: proxy.url } as typeof sim;
    expect((await syncOnce(db, through)).status).toBe('succeeded');
    const file = join(dir, 'rename-live.json');
    writeFileSync(file, JSON.stringify({ version: 1, endpoints: CASES[0]!.expected }));
    const again = await syncOnce(db, through, { env: { PITWALL_SHAPES: file } });
    expect(again.status).toBe('succeeded');
    // Every results body is the same text as before, but loads again under the file; no other endpoint's does.
    expect(again.tables.results?.updated).toBeGreaterThan(0);
    expect(again.tables.schedules?.updated ?? 0).toBe(0);
    expect(await diffAgainstTruth(db.pool, sim.url)).toEqual({});
    const third = await syncOnce(db, through, { env: { PITWALL_SHAPES: file } });
    expect(third.tables.results?.updated ?? 0).toBe(0);
    expect(third.scopes.loaded).toBe(0);
  });
});
