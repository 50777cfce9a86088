import { describe, expect, it } from 'vitest';

import { importGraph } from './import-graph.js';

/** A file's layer: its directory under src/ (`src/sync/shape/tree.ts` → `sync`), or its own name for a top-level file. */
const layerOf = (file: string): string => {
  const parts = file.split('/');
  return parts.length > 2 ? parts[1]! : parts[1]!.replace(/\.ts$/, '');
};

/**
 * Lower layers never import higher ones. Data flows config → CLI/worker → sync → API client →
 * endpoints (validate) → db (load); each entry names the layers above it that it must not reach.
 * Known exceptions today, not asserted: src/probe imports the drift report's text from
 * src/commands, and src/shapes/suggest.ts reads the shape tree of src/sync/shape.
 */
const FORBIDDEN: Record<string, readonly string[]> = {
  // Declarations are data: nothing from the engine that runs them, nor its configuration.
  endpoints: ['sync', 'shapes', 'config', 'sources', 'worker', 'observability', 'probe', 'simulator', 'commands', 'cli'],
  api: ['endpoints', 'db', 'sync', 'shapes', 'config', 'sources', 'worker', 'observability', 'probe', 'simulator', 'commands', 'cli'],
  db: ['api', 'endpoints', 'sync', 'shapes', 'worker', 'observability', 'probe', 'simulator', 'commands', 'cli'],
  // Who works which source (locks, sessions, shares, pace) sits beneath the sync that uses it.
  coordination: ['sync', 'worker', 'observability', 'probe', 'simulator', 'commands', 'cli'],
  sync: ['worker', 'observability', 'probe', 'simulator', 'commands', 'cli'],
  observability: ['worker', 'probe', 'simulator', 'commands', 'cli'],
  worker: ['probe', 'simulator', 'commands', 'cli'],
  commands: ['cli'],
};

describe('the layers of src/', () => {
  const graph = importGraph();

  it('knows every layer it rules on', () => {
    const layers = new Set([...graph.keys()].map(layerOf));
    for (const [layer, above] of Object.entries(FORBIDDEN)) expect([layer, ...above].filter((l) => !layers.has(l))).toEqual([]);
  });

  it('has no file under src/endpoints importing from src/sync', () => {
    const offenders = [...graph].flatMap(([file, targets]) =>
      layerOf(file) === 'endpoints' ? targets.filter((t) => layerOf(t) === 'sync').map((t) => `${file} → ${t}`) : [],
    );
    expect(offenders).toEqual([]);
  });

  it('has no lower layer importing a higher one', () => {
    const offenders = [...graph].flatMap(([file, targets]) =>
      targets.filter((t) => FORBIDDEN[layerOf(file)]?.includes(layerOf(t))).map((t) => `${file} → ${t}`),
    );
    expect(offenders).toEqual([]);
  });
});
