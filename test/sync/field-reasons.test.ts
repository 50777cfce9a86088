import { describe, expect, it } from 'vitest';

import { endpoint } from '../../src/sync/endpoints.js';

const driverStats = endpoint('driver_stats');
const events = endpoint('events');
const results = endpoint('results');

const reasons = (x: { fieldErrors: Array<{ path: string; reason: string }> }) => Object.fromEntries(x.fieldErrors.map((e) => [e.path, e.reason]));

describe('a field error reason', () => {
  it('reads as a sentence naming the type expected and the value received, for every shared field type', () => {
    const stat = {
      ScheduleYear: 2024,
      ClassId: 3,
      ClassName: { nested: true },
      Starts: '12 starts',
      AvgStart: '9.68 avg',
      Driver: [{ DriverId: 7, DriverLName: 'x'.repeat(600) }],
    };
    expect(reasons(driverStats.extract([stat], {}, {}))).toEqual({
      'DriverStats[].ClassName': 'expected text or a number, got {"nested":true}',
      'DriverStats[].Starts': 'expected a whole number (up to 2147483647 either way), got "12 starts"',
      'DriverStats[].AvgStart': 'expected a decimal number, got "9.68 avg"',
      'DriverStats[].Driver[].DriverLName': `expected text of at most 500 characters, got "${'x'.repeat(59)}…`,
    });
    const event = { EventId: 5, EventDate: '2015-05-11' };
    expect(reasons(events.extract([event], { ScheduleId: '1' }, {}))).toEqual({
      'ScheduleEvents[].EventDate': 'expected a US date-time such as 5/11/2015 7:30 PM, got "2015-05-11"',
    });
    const klass = { ClassId: 1, Races: [{ Results: [{ ResultDNF: 'maybe', ResultPlace: 1.5 }] }] };
    expect(reasons(results.extract([klass], { EventId: '9' }, {}))).toEqual({
      'Classes[].Races[].Results[].ResultDNF': 'expected a flag (true/false, 1/0, yes/no), got "maybe"',
      'Classes[].Races[].Results[].ResultPlace': 'expected a whole number (up to 2147483647 either way), got 1.5',
    });
  });

  it("names the key's type in a reject's reason too", () => {
    const x = results.extract([{ ClassId: 'abc' }], { EventId: '9' }, {});
    expect(x.rejects).toHaveLength(1);
    expect(x.rejects[0]!.reason).toMatch(/ClassId: expected an id \(a whole number, 0 or more, up to 2147483647\), got "abc"$/);
  });
});
