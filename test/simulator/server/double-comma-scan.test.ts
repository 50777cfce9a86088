import { describe, expect, it } from 'vitest';

import { arraySeparatorOffsets, injectDoubleComma } from '../../../src/simulator/double-comma.js';

describe('the ,, injector', () => {
  it('finds only commas between array items, not in objects or strings', () => {
    const json = '{"a":1,"b":[1,{"c":"x,y","d":[2,3]}],"e":"[,]"}';
    const offsets = arraySeparatorOffsets(json);
    expect(offsets.map((i) => json.slice(i - 1, i + 2))).toEqual(['1,{', '2,3']);
  });

  it('ignores escaped quotes inside strings', () => {
    expect(arraySeparatorOffsets('["a\\",b","c"]')).toEqual([8]);
  });

  it('doubles one separator, chosen by the variant, and gives up without one', () => {
    expect(injectDoubleComma('[1,2,3]', 0)).toBe('[1,,2,3]');
    expect(injectDoubleComma('[1,2,3]', 0.99)).toBe('[1,2,,3]');
    expect(injectDoubleComma('{"a":[1],"b":2}', 0.5)).toBeNull();
  });
});
