import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { bodyIsStorable, unstorableTextAt } from '../../src/sync/extract/storable.js';

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

describe('bodyIsStorable', () => {
  it('passes text whose escapes cannot stand for a NUL or a surrogate', () => {
    expect(bodyIsStorable('{"DriverFName":"Kyle","Note":"on pole \\u00e9 🏁","N":3}')).toBe(true);
    expect(bodyIsStorable('{"A":"\\u0041\\u00ff\\uD7FF\\uE000"}')).toBe(true);
  });

  it('sends a body that may hold one to the item-by-item check: NUL, either half of a pair, any case', () => {
    for (const escape of ['\\u0000', '\\ud800', '\\uDBFF', '\\udc00', '\\uDFFF', '\\uD83C\\uDFC1']) {
      expect({ escape, storable: bodyIsStorable(`{"A":"x${escape}y"}`) }).toEqual({ escape, storable: false });
    }
  });

  it('never passes a body that holds unstorable text, whatever the JSON (a pass means no item needs the check)', () => {
    // JSON.stringify writes a lone surrogate as an escape and a NUL as \u0000, as an upstream would.
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('\u0000', '\ud800', 'a\udfffb', '🏁'));
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.constant(null), fc.array(tie('value')), fc.dictionary(text, tie('value'))),
    })).value;
    const seen = { passed: 0, unstorable: 0 };
    fc.assert(
      fc.property(json, (value) => {
        if (unstorableTextAt(value) !== null) seen.unstorable += 1;
        if (!bodyIsStorable(JSON.stringify(value))) return;
        seen.passed += 1;
        expect(unstorableTextAt(value)).toBeNull();
      }),
      { numRuns: 2000 },
    );
    // Both kinds came up, so the property was tested both ways.
    expect(seen.passed).toBeGreaterThan(200);
    expect(seen.unstorable).toBeGreaterThan(200);
  });
});
