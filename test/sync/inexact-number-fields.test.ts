import { describe, expect, it } from 'vitest';

import { parseJson } from '../../src/api/parse-json.js';
import { FALLBACK, fastParse } from '../../src/endpoints/fast-parse.js';
import { resultRow } from '../../src/endpoints/results.js';
import { jsonText } from '../../src/exact-number.js';
import { endpoint } from '../../src/sync/endpoints.js';
import { fieldValueText } from '../../src/sync/sql/field-errors.js';

const driverStats = endpoint('driver_stats');
const results = endpoint('results');

const BIG = '123456789012345678901234567890';

describe('a number JSON.parse cannot carry, in a modelled field', () => {
  it('fails an integer field with a reason and a value that quote it as sent', () => {
    const [klass] = parseJson(`[{"ClassId":1,"Races":[{"Results":[{"ResultStart":1e400,"ResultPlace":-${BIG}}]}]}]`) as unknown[];
    const x = results.extract([klass], { EventId: '9' }, {});
    const errors = Object.fromEntries(x.fieldErrors.map((e) => [e.path, [fieldValueText(e.value), e.reason]]));
    expect(errors).toEqual({
      'Classes[].Races[].Results[].ResultStart': ['1e400', '1e400: out of range for a whole number (up to 2147483647 either way)'],
      'Classes[].Races[].Results[].ResultPlace': [`-${BIG}`, `-${BIG}: out of range for a whole number (up to 2147483647 either way)`],
    });
    const [row] = x.rows.results ?? [];
    expect(row).toMatchObject({ start: null, finish: null });
    expect(jsonText(row!.raw)).toContain(`"ResultStart":1e400,"ResultPlace":-${BIG}`);
  });

  it('keeps every digit in a text or decimal field, through the fast path and the zod one alike', () => {
    const [item] = parseJson(`[{"ResultCarNum":${BIG},"DriverName":1e400}]`) as unknown[];
    // The fast path has no form for it and hands the item to zod, which keeps the text.
    expect(fastParse(resultRow, item)).toBe(FALLBACK);
    const [klass] = parseJson(`[{"ClassId":1,"Races":[{"Results":[{"ResultCarNum":${BIG},"DriverName":1e400}]}]}]`) as unknown[];
    const x = results.extract([klass], { EventId: '9' }, {});
    expect(x.fieldErrors).toEqual([]);
    expect(x.rows.results?.[0]).toMatchObject({ car_number: BIG, driver_name: '1e400' });
    const [stat] = parseJson(`[{"ScheduleYear":2024,"ClassId":3,"AvgStart":${BIG},"AvgFinish":1e200000,"Driver":[{"DriverId":7}]}]`) as unknown[];
    const s = driverStats.extract([stat], {}, {});
    expect(s.rows.driver_stats?.[0]).toMatchObject({ avg_start: BIG, avg_finish: null });
    expect(s.fieldErrors.map((e) => e.reason)).toEqual(['1e200000: out of range for a decimal number']);
  });

  it("names the number as sent in a reject's reason when it is in a key", () => {
    const x = results.extract(parseJson(`[{"ClassId":${BIG}}]`) as unknown[], { EventId: '9' }, {});
    expect(x.rejects).toHaveLength(1);
    expect(x.rejects[0]!.reason).toMatch(new RegExp(`ClassId: ${BIG}: out of range for an id`));
  });
});
