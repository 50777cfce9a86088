import { describe, expect, it } from 'vitest';

import { asObjid, OWNER_NAMESPACE, PRESENCE_NAMESPACE, sourceLockId, WORKER_PRESENCE } from '../../src/coordination/lock-ids.js';
import { globalShareOf, lockPicture } from '../../src/coordination/lock-picture.js';

/** pg_locks rows as LOCK_PICTURE_SQL returns them: workers by pid, each owning `owns` sources; guests by pid with their sources. */
function rows(workers: Array<{ pid: number; owns: string[] }>, guests: Array<{ pid: number; works: string[] }> = []) {
  return [
    ...workers.flatMap((w) => [
      { ns: PRESENCE_NAMESPACE, id: WORKER_PRESENCE, pid: w.pid },
      ...w.owns.map((s) => ({ ns: OWNER_NAMESPACE, id: asObjid(sourceLockId(s)), pid: w.pid })),
    ]),
    ...guests.flatMap((g) => g.works.map((s) => ({ ns: PRESENCE_NAMESPACE, id: asObjid(sourceLockId(s)), pid: g.pid }))),
  ];
}

const sites = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `site-${from + i + 1}`);

describe('the share of the cap on all sources', () => {
  it('is whole for a process alone, whatever it owns yet', () => {
    const picture = lockPicture(rows([{ pid: 1, owns: [] }]));
    expect(globalShareOf(picture, 0)).toBe(1);
  });

  it('goes to the worker that owns the sources: the first of three started together, which took all 100, keeps the whole cap', () => {
    const picture = lockPicture(rows([{ pid: 1, owns: sites(0, 100) }, { pid: 2, owns: [] }, { pid: 3, owns: [] }]));
    expect(picture.sourcesWorked).toBe(100);
    expect(globalShareOf(picture, 100)).toBe(1);
    // The idle two hold back one source's worth at most, never 0 (which a limiter reads as no cap).
    expect(globalShareOf(picture, 0)).toBe(1 / 100);
  });

  it('is shared in proportion once the sources are spread, the shares summing to the whole', () => {
    const owns = [sites(0, 34), sites(34, 67), sites(67, 100)];
    const picture = lockPicture(rows(owns.map((o, i) => ({ pid: i + 1, owns: o }))));
    const shares = owns.map((o) => globalShareOf(picture, o.length));
    expect(shares).toEqual([0.34, 0.33, 0.33]);
    expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
  });

  it('counts a guest (a manual sync) by the sources it works, beside their owner', () => {
    const picture = lockPicture(rows([{ pid: 1, owns: sites(0, 4) }], [{ pid: 9, works: ['site-1'] }]));
    expect(picture.processes).toBe(2);
    expect(picture.sourcesWorked).toBe(5);
    expect([globalShareOf(picture, 4), globalShareOf(picture, 1)]).toEqual([0.8, 0.2]);
  });
});
