import { describe, expect, it } from 'vitest';

import { renderTable, wrapText } from '../../src/commands/format.js';

describe('a long text in a terminal table', () => {
  const error = 'its process (pid 4242 on build-7) stopped reporting progress; marked abandoned at its last heartbeat';

  it('is wrapped at spaces into lines of at most the width, every word kept in order', () => {
    const lines = wrapText(error, 30).split('\n');
    expect(lines.every((l) => l.length <= 30)).toBe(true);
    expect(lines.join(' ')).toBe(error);
    expect(wrapText('x'.repeat(25), 10).split('\n')).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
  });

  it('takes as many lines of its row, the other cells blank below their first', () => {
    const table = renderTable(['job', 'runs', 'error'], [['full', 3, wrapText(error, 40)], ['live', 12, 'none']]);
    expect(table.split('\n')).toEqual([
      'job   runs  error',
      '----  ----  ----------------------------------',
      'full     3  its process (pid 4242 on build-7)',
      '            stopped reporting progress; marked',
      '            abandoned at its last heartbeat',
      'live    12  none',
    ]);
  });
});
