import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Where pitwall 0.1 kept its PGlite (PostgreSQL in WebAssembly) warehouse in PITWALL_DATA_DIR. */
export const LEGACY_PGLITE_SUBDIR = 'pglite';

/**
 * What to tell the user about a PGlite warehouse left by pitwall 0.1 in `dir`, or null when there
 * is none. Its files cannot be opened by a PostgreSQL server (PGlite is a 32-bit WebAssembly
 * build), so it is left where it is, never deleted. What it holds is a mirror of the upstream,
 * so a sync rebuilds it; to copy it over instead, serve it with pitwall 0.1 and dump it.
 */
export function legacyWarehouseNotice(dir: string): string | null {
  const old = join(dir, LEGACY_PGLITE_SUBDIR);
  if (!existsSync(old)) return null;
  return (
    `${old} holds a warehouse made by pitwall 0.1 (PGlite); the embedded warehouse is now a PostgreSQL server in ${join(dir, 'postgres')}, ` +
    'and the old one is left untouched. Run `pitwall sync` to fill the new one from the upstream, or copy the old data over: ' +
    'see "Upgrading from the PGlite warehouse" in docs/warehouse.md. Delete the old directory yourself once you no longer need it.'
  );
}
