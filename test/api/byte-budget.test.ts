import { describe, expect, it } from 'vitest';

import { ByteBudget } from '../../src/api/byte-budget.js';

/** Whether a grow went on at once (null) or had to wait; a waiting one is resolved into `granted`. */
function grow(hold: ReturnType<ByteBudget['hold']>, bytes: number, granted: string[], name: string, signal?: AbortSignal): 'now' | 'waits' {
  const waiting = hold.grow(bytes, signal);
  if (!waiting) return 'now';
  waiting.then(() => granted.push(name), () => granted.push(`${name} aborted`));
  return 'waits';
}
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the process byte budget', () => {
  it('lets chunks go on while they fit, holds the next body until bytes are given back, and counts every byte', async () => {
    const budget = new ByteBudget(100);
    const granted: string[] = [];
    const a = budget.hold();
    const b = budget.hold();
    expect(grow(a, 60, granted, 'a')).toBe('now');
    expect(grow(b, 50, granted, 'b')).toBe('waits'); // b holds nothing yet: it waits, it does not overdraw
    expect(budget.used).toBe(60);
    a.release();
    await settle();
    expect(granted).toEqual(['b']);
    expect(budget.used).toBe(50);
    b.release();
    b.release(); // twice is harmless
    expect(budget.used).toBe(0);
  });

  it('lets one body under way overdraw, so bodies waiting on each other cannot wait for good', async () => {
    const budget = new ByteBudget(100);
    const granted: string[] = [];
    const [a, b, c] = [budget.hold(), budget.hold(), budget.hold()];
    grow(a, 50, granted, 'a');
    grow(b, 50, granted, 'b');
    // Both under way and the budget full: the first to ask for more overdraws, the second waits.
    expect(grow(a, 30, granted, 'a+')).toBe('now');
    expect(grow(b, 30, granted, 'b+')).toBe('waits');
    expect(grow(a, 500, granted, 'a++')).toBe('now'); // the overdrawing body goes on to its end
    expect(grow(c, 30, granted, 'c')).toBe('waits');
    a.release();
    await settle();
    // b's chunk fits once a has given back; c's does not, beside it.
    expect(granted).toEqual(['b+']);
    expect(budget.used).toBe(80);
    b.release();
    await settle();
    expect(granted).toEqual(['b+', 'c']);
  });

  it('a body alone goes on however large, and a waiting body given up leaves nothing held', async () => {
    const budget = new ByteBudget(10);
    const granted: string[] = [];
    const big = budget.hold();
    expect(grow(big, 1_000, granted, 'big')).toBe('now');
    const aborted = new AbortController();
    const late = budget.hold();
    const given = budget.hold();
    expect(grow(late, 5, granted, 'late', aborted.signal)).toBe('waits');
    expect(grow(given, 5, granted, 'given')).toBe('waits');
    aborted.abort();
    given.release();
    await settle();
    expect(granted).toEqual(['late aborted', 'given']);
    big.release();
    await settle();
    expect(budget.used).toBe(0);
  });

  it('with capacity 0 holds nothing back', () => {
    const budget = new ByteBudget(0);
    const granted: string[] = [];
    for (let i = 0; i < 5; i++) expect(grow(budget.hold(), 1e9, granted, String(i))).toBe('now');
  });
});
