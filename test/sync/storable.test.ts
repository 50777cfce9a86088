import { describe, expect, it } from 'vitest';

import { unstorableTextAt } from '../../src/sync/extract/storable.js';

describe('unstorableTextAt', () => {
  it('finds nothing in ordinary text, surrogate pairs (emoji) included', () => {
    expect(unstorableTextAt({ DriverFName: 'Kyle', Car: ['12x', { Note: 'on pole 🏁' }], N: 3, F: null })).toBeNull();
  });

  it('names the path of a NUL or a lone surrogate, however deep', () => {
    expect(unstorableTextAt({ Driver: [{ DriverFName: 'Ky\u0000le' }] })).toBe('Driver.0.DriverFName');
    expect(unstorableTextAt({ A: { B: 'x\ud800' } })).toBe('A.B');
    expect(unstorableTextAt({ A: '\udc00y' })).toBe('A');
    expect(unstorableTextAt('bare \u0000')).toBe('(item)');
  });

  it('checks field names too, and shows a bad one repaired', () => {
    expect(unstorableTextAt({ Outer: { ['Bad\u0000Name']: 1 } })).toBe('Outer.Bad\ufffdName (the field name)');
  });

  it('leaves out the top-level fields it is told to, and only at the top', () => {
    expect(unstorableTextAt({ Races: ['\u0000'], Classes: [{ N: '\ud800' }], Name: 'ok' }, ['Races', 'Classes'])).toBeNull();
    expect(unstorableTextAt({ Inner: { Races: ['\u0000'] } }, ['Races'])).toBe('Inner.Races.0');
    expect(unstorableTextAt({ Races: [], Name: 'x\u0000' }, ['Races'])).toBe('Name');
  });
});
