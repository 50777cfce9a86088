import { type chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { chownTree } from '../../src/embedded/server-user.js';

/**
 * A copied data directory is given to the server's user before the server starts, and an open
 * checks only the top directory's owner to know whether that was done. A process killed halfway
 * (crash-embedded.test.ts kills `pitwall sync` while it opens) must therefore never leave the top
 * given away with entries under it still root's: here the chown is cut short after every number
 * of steps in turn, with no root needed.
 */
describe('chownTree cut short', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pitwall-chown-tree-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const top = join(dir, 'postgres');
  mkdirSync(join(top, 'base/1'), { recursive: true });
  mkdirSync(join(top, 'global'));
  for (const file of ['PG_VERSION', 'pitwall-server.log', 'base/1/1259', 'base/1/2608', 'global/pg_control']) writeFileSync(join(top, file), '');
  const user = { name: 'server', uid: 4242, gid: 4242 };

  /** The paths a chown that stops after `steps` changes has given away. */
  const givenAfter = (steps: number): string[] => {
    const given: string[] = [];
    const cut = ((path: string) => {
      if (given.length === steps) throw new Error('killed');
      given.push(String(path));
    }) as typeof chownSync;
    try {
      chownTree(top, user, cut);
    } catch {
      // Cut short: what it gave away so far is the state a killed process leaves.
    }
    return given;
  };

  it('gives the top directory away last, so that a top given away means the whole tree is', () => {
    const all = givenAfter(Infinity);
    expect(all).toHaveLength(9);
    expect(all.at(-1)).toBe(top);
    for (let steps = 0; steps < all.length; steps++) expect(givenAfter(steps)).not.toContain(top);
  });

  it('gives each directory away after what is in it', () => {
    const all = givenAfter(Infinity);
    for (const [i, path] of all.entries()) for (const inside of all.filter((p) => p.startsWith(`${path}/`))) expect(all.indexOf(inside)).toBeLessThan(i);
  });
});
