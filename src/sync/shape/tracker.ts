import type pg from 'pg';

import type { Endpoint } from '../../endpoints/endpoint.js';
import type { EndpointName } from '../../endpoints/types.js';
import type { Logger } from '../../log.js';
import { redact } from '../../secrets.js';
import type { EndpointOverrides, Shapes } from '../../shapes/overrides.js';

import { keptWhere } from './kept-where.js';
import { aliasPaths, isUnmodelledField, modelledPaths } from './modelled.js';
import { upsertShapePaths, type ShapePathRow, type ShapeRun } from './sql.js';
import { newNode, observe, paths, type ShapeNode } from './tree.js';
import { absentFields, describeWarning, vanishedFields, type ShapeWarning } from './vanished.js';

const modelledCache = new WeakMap<Endpoint, ReadonlySet<string>>();
const adjustedCache = new WeakMap<EndpointOverrides, ReadonlySet<string>>();

/**
 * The paths an endpoint's schemas model (computed once per endpoint), and with a `PITWALL_SHAPES`
 * file's part for it, the aliases it declares too: a field read under an alias is modelled.
 */
export function modelledOf(ep: Endpoint, overrides?: EndpointOverrides): ReadonlySet<string> {
  let set = modelledCache.get(ep);
  if (!set) modelledCache.set(ep, (set = modelledPaths(ep.levels)));
  if (!overrides) return set;
  let adjusted = adjustedCache.get(overrides);
  if (!adjusted) adjustedCache.set(overrides, (adjusted = new Set([...set, ...aliasPaths(overrides)])));
  return adjusted;
}

/**
 * The shapes of the bodies one run loads, per endpoint, held in memory and added to
 * pitwall.shape_paths when flushed (at the end of each phase and of the run). Bodies skipped
 * as unchanged are never given to it, so a no-op re-sync writes nothing here.
 */
export class ShapeTracker {
  private trees = new Map<Endpoint, ShapeNode>();
  /** Unmodelled fields seen by this run, per endpoint: the summary's `unknownFields`. */
  private readonly unmodelled = new Map<EndpointName, Set<string>>();
  /** Modelled fields this run found missing from every item, warned once each. */
  private readonly missing: ShapeWarning[] = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly at: ShapeRun,
    private readonly logger: Logger,
    /** Texts never to store (the API key): an upstream that echoes the request could put it in an example. */
    private readonly secrets: readonly string[] = [],
    /** A `PITWALL_SHAPES` file's adjustments: the aliases it declares count as modelled. */
    private readonly overrides: Shapes | null = null,
    private readonly batchSize = 500,
  ) {}

  private modelled(ep: Endpoint): ReadonlySet<string> {
    return modelledOf(ep, this.overrides?.endpoints.get(ep.name));
  }

  /** Counts every path of one body. Synchronous and allocation-light: it runs for every loaded response. */
  record(ep: Endpoint, body: unknown): void {
    let tree = this.trees.get(ep);
    if (!tree) this.trees.set(ep, (tree = newNode()));
    observe(tree, body);
  }

  /** Writes what was recorded since the last flush, and warns once for each field never seen before. */
  async flush(): Promise<void> {
    if (this.trees.size === 0) return;
    const trees = this.trees;
    this.trees = new Map();
    const rows: ShapePathRow[] = [];
    const absent = new Map<Endpoint, string[]>();
    for (const [ep, tree] of trees) {
      const modelled = this.modelled(ep);
      const all = paths(tree);
      absent.set(ep, absentFields(modelled, new Map(all.map((p) => [p.path, p]))));
      for (const p of all) {
        const example = p.example === null ? null : redact(p.example, this.secrets);
        rows.push({ endpoint: ep.name, ...p, example, modelled: modelled.has(p.path) });
        if (isUnmodelledField(p.path, modelled)) {
          let set = this.unmodelled.get(ep.name);
          if (!set) this.unmodelled.set(ep.name, (set = new Set()));
          set.add(p.path);
        }
      }
    }
    const modelledByName = new Map([...trees.keys()].map((ep) => [ep.name as string, this.modelled(ep)]));
    const freshRows: ShapePathRow[] = [];
    for (let i = 0; i < rows.length; i += this.batchSize) {
      const fresh = await upsertShapePaths(this.pool, this.at, rows.slice(i, i + this.batchSize));
      freshRows.push(...fresh);
      for (const r of fresh) {
        const modelled = modelledByName.get(r.endpoint);
        if (!modelled || !isUnmodelledField(r.path, modelled)) continue;
        const ep = [...trees.keys()].find((e) => e.name === r.endpoint);
        const keptIn = ep ? keptWhere(ep, r.path) : 'pitwall.responses (the kept bodies)';
        this.logger.warn(
          { endpoint: r.endpoint, path: r.path, types: r.types, example: r.example, keptIn },
          `upstream responses carry a field pitwall does not model (kept in ${keptIn}); see pitwall drift`,
        );
      }
    }
    for (const [ep, fields] of absent) {
      const found = await vanishedFields(this.pool, this.at, ep.name, fields, freshRows.filter((r) => r.endpoint === ep.name), this.modelled(ep));
      for (const w of found) {
        this.logger.warn({ endpoint: w.endpoint, path: w.path, candidates: w.candidates }, `${describeWarning(w)}; see pitwall drift --suggest`);
      }
      this.missing.push(...found);
    }
  }

  /** Modelled fields missing from every item in this run's bodies (flushed ones only), each warned once per change. */
  missingFields(): ShapeWarning[] {
    return [...this.missing];
  }

  /** Distinct unmodelled fields this run saw, per endpoint (flushed ones only). */
  unmodelledCounts(): Partial<Record<EndpointName, number>> {
    return Object.fromEntries([...this.unmodelled].map(([name, set]) => [name, set.size]));
  }
}
