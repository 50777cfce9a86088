import { describe, expect, it } from 'vitest';

import { collapseCommas, parseBody, stripJsonp } from '../../src/api/body.js';
import { PayloadError, SNIPPET_MAX_BYTES } from '../../src/api/errors.js';

describe('parseBody', () => {
  it('parses clean JSON without calling it repaired', () => {
    expect(parseBody('{"RequestValid":1,"Points":[1,2]}')).toEqual({
      value: { RequestValid: 1, Points: [1, 2] },
      repaired: false,
      text: '{"RequestValid":1,"Points":[1,2]}',
    });
  });

  it('collapses the upstream double-comma defect and says so', () => {
    const text = '{"RequestValid":1,,"Points":[{"Pos":1},,{"Pos":2},],"X":[,3]}';
    expect(parseBody(text)).toEqual({
      value: { RequestValid: 1, Points: [{ Pos: 1 }, { Pos: 2 }], X: [3] },
      repaired: true,
      text: '{"RequestValid":1,"Points":[{"Pos":1},{"Pos":2}],"X":[3]}',
    });
  });

  it('leaves commas inside strings alone, escaped quotes included', () => {
    const text = '{"Name":"a,,b \\",, [,] ,}",,"N":1}';
    expect(parseBody(text).value).toEqual({ Name: 'a,,b ",, [,] ,}', N: 1 });
  });

  it('strips a JSONP wrapper and a BOM', () => {
    expect(parseBody('\uFEFF/**/ cb.x({"RequestValid":1});')).toMatchObject({ value: { RequestValid: 1 }, text: '{"RequestValid":1}' });
    expect(stripJsonp('{"a":"f(x)"}')).toBe('{"a":"f(x)"}');
  });

  it('throws PayloadError with a snippet of at most 2 KiB for a truncated body', () => {
    const text = `{"RequestValid":1,"Rows":[${'"ééé",'.repeat(1000)}`;
    const err = (() => {
      try {
        return parseBody(text);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(PayloadError);
    const snippet = (err as PayloadError).snippet;
    expect(Buffer.byteLength(snippet)).toBeLessThanOrEqual(SNIPPET_MAX_BYTES);
    expect(snippet).not.toContain('\uFFFD');
    expect(snippet.startsWith('{"RequestValid":1')).toBe(true);
    expect((err as PayloadError).cause).toBeInstanceOf(SyntaxError);
  });

  it('reports an empty body as such', () => {
    expect(() => parseBody('  ')).toThrow('body is empty');
  });
});

describe('collapseCommas', () => {
  it('removes leading, repeated and trailing commas outside strings', () => {
    expect(collapseCommas('[,1 , ,2,\n]')).toBe('[1 , 2\n]');
    expect(collapseCommas('{,"a":1,}')).toBe('{"a":1}');
  });
});
