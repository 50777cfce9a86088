import { describe, expect, it } from 'vitest';

import { importCycles, importGraph } from './import-graph.js';

/** A cycle as a reader would follow it: each file, then one it imports inside the cycle, back to the first. */
function describeCycle(graph: Map<string, string[]>, members: string[]): string {
  const inCycle = new Set(members);
  const path = [members[0]!];
  const seen = new Set(path);
  for (;;) {
    const next = (graph.get(path.at(-1)!) ?? []).find((t) => inCycle.has(t) && (!seen.has(t) || t === members[0]));
    if (next === undefined || next === members[0]) break;
    path.push(next);
    seen.add(next);
  }
  return `${path.join(' → ')} → ${members[0]} (${members.length} files)`;
}

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('reads every module, type-only imports included', () => {
    // client.ts's only import of types.ts is `import type`; a scan that skipped those would miss it.
    expect(graph.get('src/api/client.ts')).toContain('src/api/types.ts');
    expect(graph.size).toBeGreaterThan(100);
  });

  it('finds a cycle when there is one', () => {
    const circle = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(importCycles(circle)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('has no cycles, not even through `import type`', () => {
    expect(importCycles(graph).map((c) => describeCycle(graph, c))).toEqual([]);
  });
});
