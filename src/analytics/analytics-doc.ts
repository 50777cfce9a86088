import { configurationTable } from '../config-doc.js';
import { wireColumnsDoc } from '../endpoints/wire-columns-doc.js';
import { exitCodesTable } from '../exit-codes-doc.js';

import { COOKBOOK, type Recipe } from './cookbook.js';
import { erDiagram } from './er-diagram.js';

/**
 * The generated parts of the docs, each between `<!-- name:start -->` and `<!-- name:end -->`
 * markers: the ER diagram with its joins, and the wire field of every column in docs/warehouse.md, the
 * cookbook in docs/cookbook.md, every setting in docs/configuration.md and the exit codes in docs/commands.md.
 * `node bin/run-ts.js src/analytics/write-docs.ts` rewrites them; test/analytics/docs.test.ts
 * fails when a file differs from what this renders, so the docs cannot drift from the schema or
 * the recipes.
 */
export const GENERATED_DOCS = {
  warehouse: { url: new URL('../../docs/warehouse.md', import.meta.url), sections: ['er-diagram', 'wire-columns'] },
  cookbook: { url: new URL('../../docs/cookbook.md', import.meta.url), sections: ['cookbook'] },
  configuration: { url: new URL('../../docs/configuration.md', import.meta.url), sections: ['configuration'] },
  commands: { url: new URL('../../docs/commands.md', import.meta.url), sections: ['exit-codes'] },
} as const;

function renderRecipe(r: Recipe, n: number): string {
  const params = (r.params ?? []).map((p, i) => `-- $${i + 1}: ${p.name}, ${p.description}\n`).join('');
  const run = `\`pitwall sql --recipe ${r.id}${(r.params ?? []).map((p) => ` --param <${p.name}>`).join('')}\``;
  return [`## ${n}. ${r.question}`, '', ...(r.note ? [r.note, ''] : []), run, '', '```sql', `${params}${r.sql}`, '```'].join('\n');
}

export function renderCookbook(recipes: readonly Recipe[] = COOKBOOK): string {
  return recipes.map((r, i) => renderRecipe(r, i + 1)).join('\n\n');
}

const SECTIONS: Record<string, () => string> = {
  'er-diagram': () => ['```mermaid', erDiagram(), '```'].join('\n'),
  cookbook: () => renderCookbook(),
  'wire-columns': () => wireColumnsDoc(),
  configuration: () => configurationTable(),
  'exit-codes': () => exitCodesTable(),
};

/**
 * `doc` with the text between `<!-- name:start ... -->` and `<!-- name:end -->` replaced by
 * `rendered`: the one way every generated part of a doc is written, here and by the bench.
 */
export function replaceGeneratedSection(doc: string, name: string, rendered: string): string {
  const start = `<!-- ${name}:start`;
  const end = `<!-- ${name}:end -->`;
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from === -1 || to === -1 || to < from) throw new Error(`the doc lacks the ${start} ... ${end} markers`);
  const bodyStart = doc.indexOf('-->', from) + 3;
  return `${doc.slice(0, bodyStart)}\n${rendered}\n${doc.slice(to)}`;
}

/** `doc` with each of the generated `sections` it holds replaced by its current rendering. */
export function renderGeneratedSections(doc: string, sections: readonly string[]): string {
  let out = doc;
  for (const name of sections) {
    const render = SECTIONS[name];
    if (!render) throw new Error(`no generated section named ${name}`);
    out = replaceGeneratedSection(out, name, render());
  }
  return out;
}
