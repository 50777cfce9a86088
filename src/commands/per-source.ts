import type pg from 'pg';

import type { Config } from '../config.js';
import { selectSources, type SourceSettings } from '../sources.js';
import { recordedSources } from '../sync/sql/recorded-sources.js';

/** A source a command that reads the warehouse works for; `configured` false for one only the warehouse knows. */
export interface WarehouseSource extends SourceSettings {
  configured: boolean;
}

/**
 * The sources of a command that reads the warehouse (`status`, `drift`, `rebuild`): those the
 * configuration names, then any other the warehouse has runs of (a source since dropped from
 * PITWALL_SOURCES, or the `default` of a warehouse loaded before the file), with the global
 * settings. `--source NAME` picks among them exactly as it does for `sync`, all when none is named.
 */
export async function warehouseSources(
  db: pg.Pool,
  configured: readonly SourceSettings[],
  config: Config,
  names: readonly string[] | undefined,
): Promise<WarehouseSource[]> {
  const known = new Set(configured.map((s) => s.name));
  const recorded = (await recordedSources(db)).filter((name) => !known.has(name));
  return selectSources(
    [...configured.map((s) => ({ ...s, configured: true })), ...recorded.map((name) => ({ name, config, configured: false }))],
    names,
  );
}

/** One source's text as it has always been printed; several, each under a `== source NAME` line. */
export function perSourceText(names: readonly string[], texts: readonly string[]): string {
  if (texts.length === 1) return texts[0] ?? '';
  return texts.map((text, i) => `== source ${names[i]}\n${text}`).join('\n\n');
}

/** One source's JSON object as it has always been printed; several, as `{"sources": {NAME: object}}`. */
export function perSourceJson(names: readonly string[], values: readonly unknown[]): string {
  if (values.length === 1) return JSON.stringify(values[0]);
  return JSON.stringify({ sources: Object.fromEntries(values.map((value, i) => [names[i], value])) });
}
