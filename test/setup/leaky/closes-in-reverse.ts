import { afterAll, describe, expect, it } from 'vitest';

import { useResource } from '../../helpers/fixture.js';

// Run only by test/fixture.test.ts, through its own config: a failing test, a failing closer.
const closed: string[] = [];
const resource = (name: string, fails = false) =>
  useResource(
    name,
    async () => ({ name }),
    () => {
      closed.push(name);
      if (fails) throw new Error(`${name} failed to close`);
    },
  );

describe('a block whose test and one of whose closers fail', () => {
  resource('first');
  resource('second', true);
  const third = resource('third');
  it('fails', () => {
    expect(third.name).toBe('not third');
  });
});

afterAll(() => {
  process.stdout.write(`closed: ${closed.join(', ')}\n`);
});
