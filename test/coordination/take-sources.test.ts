import { describe, expect, it } from 'vitest';

import { takeSources } from '../../src/coordination/take-sources.js';
import { useDatabase } from '../helpers/fixture.js';
import { openLockSession } from '../helpers/lock-session.js';

const SOURCES = ['track-a', 'track-b', 'track-c', 'track-d', 'track-e', 'track-f'];

/**
 * Two workers that read who owns what at the same moment see the same sources free and try the
 * same first ones. The one that loses those tries takes the next free ones in the same beat: once,
 * the loser of two workers started together held none of the six sources until its next beat.
 */
describe('taking sources', () => {
  const db = useDatabase('postgres');
  const open = () => openLockSession(db.pool);

  it('goes on with the next candidates when another session took the first ones after this one looked', async () => {
    const first = await open();
    const second = await open();
    expect(await takeSources(first, SOURCES, 3)).toEqual(['track-a', 'track-b', 'track-c']);
    // The second worker's picture was read before the first took its share: every source looked free.
    expect(await takeSources(second, SOURCES, 3)).toEqual(['track-d', 'track-e', 'track-f']);
    // A third finds none free. (A session's own locks are not candidates: the worker leaves out
    // what it owns, since PostgreSQL grants a session a lock it already holds.)
    expect(await takeSources(await open(), SOURCES, 3)).toEqual([]);
  });

  it('takes no more than its room, and what a partial try left over from later candidates', async () => {
    const first = await open();
    const second = await open();
    expect(await takeSources(first, ['track-b', 'track-d'], 2)).toEqual(['track-b', 'track-d']);
    expect(await takeSources(second, SOURCES, 3)).toEqual(['track-a', 'track-c', 'track-e']);
    expect(await takeSources(first, SOURCES.filter((s) => s !== 'track-b' && s !== 'track-d'), 5)).toEqual(['track-f']);
  });
});
