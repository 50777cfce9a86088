import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, describe, expect, it } from 'vitest';

import { EXIT } from '../../src/errors.js';
import { PITWALL_BIN, runCli } from '../helpers/cli.js';
import { copyEmbeddedTemplate } from '../helpers/db.js';
import { warehouseTempDir } from '../helpers/temp-dir.js';

import { stderrLines } from './serving.js';

const remedy = 'set PITWALL_DATA_DIR to a directory pitwall may write, or set DATABASE_URL to use a PostgreSQL server';
const oneLine = (dir: string, cause: string) => [`pitwall: cannot open the warehouse at ${dir}: PITWALL_DATA_DIR (${dir}) is not writable: ${cause}; ${remedy}`];

const root = process.getuid?.() === 0;
/** What pitwall says of a directory it may not write: read-only as root (a bind mount), not permitted otherwise. */
const READ_ONLY_CAUSE = root ? 'read-only file system (EROFS)' : 'permission denied (EACCES)';

/**
 * `pitwall sql` with PITWALL_DATA_DIR=`dataDir`, `mount` read-only: a read-only bind mount in a
 * mount namespace of the command's own (root, as here); for another user, a directory it may not
 * write. Bounded like runCli.
 */
function underReadOnly(mount: string, dataDir: string): Promise<{ code: number; stderr: string }> {
  const pitwall = `exec ${process.execPath} ${PITWALL_BIN} sql 'SELECT 1'`;
  const [file, args] = root ? ['unshare', ['--mount', 'sh', '-c', `mount --bind -o ro ${mount} ${mount} && ${pitwall}`]] : ['sh', ['-c', `chmod 500 ${mount} && ${pitwall}`]];
  return promisify(execFile)(file, args, { env: { PATH: process.env.PATH ?? '', PITWALL_DATA_DIR: dataDir }, timeout: 60_000 }).then(
    () => ({ code: 0, stderr: '' }),
    (err: { code: number; stderr: string }) => err,
  );
}

// A bad value of PITWALL_DATA_DIR: exit 2, as for any bad value (docs/commands.md#exit-codes).
describe('a PITWALL_DATA_DIR pitwall cannot write', () => {
  const tmp = warehouseTempDir('pitwall-unwritable');
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('under a file: one line naming the variable, no stack', async () => {
    writeFileSync(join(tmp, 'file'), 'not a directory\n');
    const dir = join(tmp, 'file', 'warehouse');
    const r = await runCli(['sql', 'SELECT 1'], { PITWALL_DATA_DIR: dir });
    expect(r.code).toBe(EXIT.usage);
    expect(stderrLines(r.stderr)).toEqual(oneLine(dir, 'a file stands where a directory should be (EEXIST)'));
    const deeper = join(tmp, 'file', 'data', 'warehouse');
    const r2 = await runCli(['sql', 'SELECT 1'], { PITWALL_DATA_DIR: deeper });
    expect(r2.code).toBe(EXIT.usage);
    expect(stderrLines(r2.stderr)).toEqual(oneLine(deeper, 'a part of the path is a file, not a directory (ENOTDIR)'));
  });

  it('on a read-only file system, with a warehouse in it: one line naming the variable, no stack', async () => {
    const dir = copyEmbeddedTemplate();
    try {
      const r = await underReadOnly(dir, dir);
      expect(r.code).toBe(EXIT.usage);
      expect(stderrLines(r.stderr)).toEqual(oneLine(dir, READ_ONLY_CAUSE));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('new, under a read-only file system: one line naming the variable and the cause, no stack', async () => {
    const mount = join(tmp, 'read-only');
    mkdirSync(mount);
    const dir = join(mount, 'new', 'warehouse');
    const r = await underReadOnly(mount, dir);
    expect(r.code).toBe(EXIT.usage);
    expect(stderrLines(r.stderr)).toEqual(oneLine(dir, READ_ONLY_CAUSE));
  });

  it('where the file system makes no directory (/proc): one line, where mkdir -p would spin for ever', async () => {
    expect(existsSync('/proc/self')).toBe(true);
    const dir = '/proc/pitwall-no-such/warehouse';
    const r = await runCli(['sql', 'SELECT 1'], { PITWALL_DATA_DIR: dir });
    expect(r.signal).toBeNull();
    expect(r.code).toBe(EXIT.usage);
    expect(stderrLines(r.stderr)).toEqual(oneLine(dir, 'no directory can be made there (ENOENT)'));
  });
});
