import { existsSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

import { useWarehouse, useWorker } from '../helpers/fixture.js';

import { exposedNames, promqlMetricNames, templateQueryMetricNames } from './promql-names.js';

/**
 * The observe profile (Prometheus and Grafana beside the worker) cannot run here (no Docker), so
 * its files are checked against each other and against the worker itself: every metric the
 * dashboard queries is one a real worker's /metrics declares, and every file the compose
 * services mount exists and names the services and ports compose.yaml gives them.
 */

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

interface Target {
  expr?: string;
  datasource?: { uid?: string };
}
interface Panel {
  type: string;
  title: string;
  datasource?: { uid?: string };
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; query: string | { query: string }; datasource?: { uid?: string } }> };
}
interface ComposeService {
  image?: string;
  profiles?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: string[] | Record<string, unknown>;
}

const dashboard = JSON.parse(read('deploy/grafana/pitwall.json')) as Dashboard;
const compose = parseYaml(read('compose.yaml')) as { services: Record<string, ComposeService>; volumes: Record<string, unknown> };
const prometheus = parseYaml(read('deploy/prometheus/prometheus.yml')) as {
  scrape_configs: Array<{ job_name: string; metrics_path?: string; static_configs: Array<{ targets: string[] }> }>;
};
const datasources = parseYaml(read('deploy/grafana/provisioning/datasources/prometheus.yml')) as {
  datasources: Array<{ uid: string; type: string; url: string }>;
};
const dashboardProviders = parseYaml(read('deploy/grafana/provisioning/dashboards/pitwall.yml')) as {
  providers: Array<{ type: string; options: { path: string } }>;
};

const panels = (list: Panel[]): Panel[] => list.flatMap((p) => [p, ...panels(p.panels ?? [])]);
const queryPanels = panels(dashboard.panels).filter((p) => p.type !== 'row');
const exprs = queryPanels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr ?? '' })));
const templateQueries = dashboard.templating.list.map((v) => (typeof v.query === 'string' ? v.query : v.query.query));
const queried = new Set([...exprs.flatMap((e) => promqlMetricNames(e.expr)), ...templateQueries.flatMap(templateQueryMetricNames)]);

/** Bind mounts of a compose service: host path (relative to compose.yaml) and container path. */
const bindMounts = (service: ComposeService) =>
  (service.volumes ?? [])
    .map((v) => v.split(':'))
    .filter(([source]) => source!.startsWith('./'))
    .map(([source, target]) => ({ source: source!, target: target! }));
const observe = Object.entries(compose.services).filter(([, s]) => s.profiles?.includes('observe'));

describe('the Grafana dashboard', () => {
  it('is a dashboard with panels that all query the provisioned Prometheus', () => {
    expect(dashboard.uid).toBe('pitwall');
    expect(queryPanels.length).toBeGreaterThan(10);
    const uid = datasources.datasources[0]!.uid;
    for (const p of queryPanels) {
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      expect(p.datasource?.uid, p.title).toBe(uid);
      for (const t of p.targets ?? []) expect(t.expr, p.title).toMatch(/\S/);
    }
    for (const v of dashboard.templating.list) expect(v.datasource?.uid, v.name).toBe(uid);
  });

  it('has Source and Job variables, and filters every series of pitwall\'s own by the source chosen', () => {
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(['source', 'job']);
    const selectors = exprs.flatMap((e) => [...e.expr.matchAll(/(pitwall_(?!process_|nodejs_)\w+)(\{[^}]*\})?/g)].map((m) => ({ panel: e.panel, selector: m[0] })));
    expect(selectors.length).toBeGreaterThan(20);
    expect(selectors.filter((s) => !s.selector.includes('source=~"$source"'))).toEqual([]);
  });

  it.each([
    ['runs', /pitwall_runs_total/],
    ['failures', /pitwall_runs_total\{[^}]*status="failed"/],
    ['request rate', /rate\(pitwall_upstream_requests_total/],
    ['retries', /pitwall_upstream_retries_total/],
    ['rows per table', /sum by \(table\) \(increase\(pitwall_rows_written_total/],
    ['freshness', /time\(\) - pitwall_last_success_timestamp_seconds/],
    ['rejects', /pitwall_rows_written_total\{[^}]*kind="rejected"\}/],
    ['shape drift', /pitwall_shape_drift_paths/],
    ['field type errors', /pitwall_field_errors_total/],
  ])('charts %s', (_what, query) => {
    expect(exprs.some((e) => query.test(e.expr))).toBe(true);
  });
});

describe('the dashboard against a real worker', () => {
  const worker = useWorker(useWarehouse('postgres', { scale: 'tiny', seed: 4 }), { PITWALL_HTTP_PORT: '0' });
  let exposed: Set<string>;
  beforeAll(async () => {
    expect((await worker.runJob('full')).status).toBe('succeeded');
    exposed = exposedNames(await (await fetch(`${worker.url}${prometheus.scrape_configs[0]!.metrics_path ?? '/metrics'}`)).text());
  });

  it('queries only metrics the worker declares in /metrics', () => {
    expect(exposed.has('pitwall_runs_total')).toBe(true);
    const missing = [...queried].filter((name) => !exposed.has(name));
    expect(missing).toEqual([]);
  });

  it("charts every metric pitwall itself defines (the process and Node.js defaults aside)", () => {
    const own = [...exposed].filter((n) => n.startsWith('pitwall_') && !/^pitwall_(process|nodejs)_/.test(n) && !/_(bucket|sum|count)$/.test(n));
    expect(own.length).toBeGreaterThan(5);
    const queriedBase = new Set([...queried].map((n) => n.replace(/_(bucket|sum|count)$/, '')));
    expect(own.filter((n) => !queried.has(n) && !queriedBase.has(n))).toEqual([]);
  });
});

describe("compose.yaml's observe profile", () => {
  it('has prometheus and grafana, only under the profile, and leaves the default services alone', () => {
    expect(observe.map(([name]) => name).sort()).toEqual(['grafana', 'prometheus']);
    for (const name of ['postgres', 'migrate', 'worker']) expect(compose.services[name]?.profiles, name).toBeUndefined();
    for (const [name, s] of observe) expect(s.image, name).toMatch(/^[\w./-]+:[\w.-]+$/);
  });

  it('mounts files and directories that exist, and names volumes it declares', () => {
    for (const [name, s] of observe) {
      expect(bindMounts(s).length, name).toBeGreaterThan(0);
      for (const { source } of bindMounts(s)) expect(existsSync(new URL(source, root)), `${name}: ${source}`).toBe(true);
      for (const v of s.volumes ?? []) {
        const source = v.split(':')[0]!;
        if (!source.startsWith('./')) expect(Object.keys(compose.volumes), `${name}: ${source}`).toContain(source);
      }
    }
  });

  it('gives Prometheus its config, scraping the worker service on its PITWALL_HTTP_PORT', () => {
    const mounts = bindMounts(compose.services.prometheus!);
    expect(mounts).toContainEqual({ source: './deploy/prometheus/prometheus.yml', target: '/etc/prometheus/prometheus.yml' });
    const worker = compose.services.worker!;
    const port = worker.environment?.PITWALL_HTTP_PORT;
    expect(port).toMatch(/^\d+$/);
    const job = prometheus.scrape_configs.find((c) => c.job_name === 'pitwall');
    expect(job?.metrics_path).toBe('/metrics');
    expect(job?.static_configs.flatMap((c) => c.targets)).toEqual([`worker:${port}`]);
  });

  it('gives Grafana the datasource, the provider and the dashboard where the provider looks', () => {
    const mounts = bindMounts(compose.services.grafana!);
    const targetOf = (source: string) => mounts.find((m) => m.source === source)?.target;
    expect(targetOf('./deploy/grafana/provisioning/datasources')).toBe('/etc/grafana/provisioning/datasources');
    expect(targetOf('./deploy/grafana/provisioning/dashboards')).toBe('/etc/grafana/provisioning/dashboards');
    const dashboardAt = targetOf('./deploy/grafana/pitwall.json');
    expect(dashboardAt && posix.dirname(dashboardAt)).toBe(dashboardProviders.providers[0]!.options.path);
    expect(compose.services.grafana!.environment?.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH).toBe(dashboardAt);
  });

  it('points the datasource at the prometheus service', () => {
    const ds = datasources.datasources[0]!;
    expect(ds.type).toBe('prometheus');
    const url = new URL(ds.url);
    expect(url.hostname).toBe('prometheus');
    expect(compose.services.prometheus!.ports?.some((p) => p.endsWith(`:${url.port}`))).toBe(true);
  });
});
