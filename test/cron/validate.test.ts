import { CronExpressionParser } from 'cron-parser';
import { validate } from 'node-cron';
import { describe, expect, it } from 'vitest';

import { cronProblem, resolveCronNickname } from '../../src/cron/validate.js';

describe('cronProblem', () => {
  it.each([
    '*/5 * * * *',
    '0 * * * *',
    '0 3 * * *',
    '0 0 1 1 *',
    '*/10 * * * * *',
    '0 9-17/2 * * mon-fri',
    '0 0 * JAN,jul sun',
    '0 0 * * 7',
    '0 0 * feb *',
    '0 0 * * 0-7/2',
    '0 0 ? * 1',
    '0 0 * * ?',
    '0 0 L * *',
    '0 0 * * 5L',
    '0 0 * * 1#2',
    '1,2,3-5 0-23/4 1-31/2 1-12/3 *',
    '  0  3 * * *  ',
    '@daily',
    '@Hourly',
  ])('accepts %s, as node-cron and cron-parser both do', (expression) => {
    expect(cronProblem(expression)).toBeNull();
    expect(validate(expression.trim())).toBe(true);
    expect(() => CronExpressionParser.parse(resolveCronNickname(expression))).not.toThrow();
  });

  it.each([
    ['0 25 * * *', 'hour 25 is out of 0-23'],
    ['60 * * * *', 'minute 60 is out of 0-59'],
    ['0 0 0 * *', 'day 0 is out of 1-31'],
    ['0 0 32 * *', 'day 32 is out of 1-31'],
    ['0 0 * 13 *', 'month 13 is out of 1-12'],
    ['0 0 * * 8', 'weekday 8 is out of 0-7'],
    ['60 0 * * * *', 'second 60 is out of 0-59'],
    ['*/61 * * * *', 'minute step 61 is out of 1-59'],
    ['*/0 * * * *', 'minute step 0 is out of 1-59'],
    ['0 */24 * * *', 'hour step 24 is out of 1-23'],
    ['0 0 * */x *', 'month step x is out of 1-11'],
    ['5/15 * * * *', 'minute "5/15": a step goes after * or a range'],
    ['0 5-2 * * *', 'hour range 5-2 runs backwards (low > high)'],
    ['0 0 * * fri-mon', 'weekday range fri-mon runs backwards (low > high)'],
    ['0 1-2-3 * * *', 'hour "1-2-3" is not a range'],
    ['0 0 * smarch *', 'month "smarch" is not a number or a three-letter name'],
    ['0 0 * february *', 'month "february" is not a number or a three-letter name'],
    ['x * * * *', 'minute "x" is not a number'],
    ['0 1,,2 * * *', 'hour "1,,2" has an empty list item'],
    ['0 0 L-3 * *', 'L-3: days before the last (L-n) are not supported; name the days'],
    ['0 0 15W * *', '15W: the nearest weekday (W) is not supported; name the days'],
    ['0 0 LW * *', 'LW: the nearest weekday (W) is not supported; name the days'],
    ['0 0 1 * mon', 'a day of month and a weekday together are read as either by some cron engines and as both by others; restrict one (1#2 is the second Monday)'],
    ['0 0 0 1-7 * 1', 'a day of month and a weekday together are read as either by some cron engines and as both by others; restrict one (1#2 is the second Monday)'],
    ['0 0 * * 1#6', 'occurrence 6 in 1#6 is out of 1-5'],
    ['? 0 * * *', 'minute "?" is not a number'],
    ['0 0 31 2 *', '31 2 is an impossible day of month for the given month'],
    ['0 3 * *', '4 fields'],
    ['0 0 3 * * * *', '7 fields'],
    ['@fortnightly', '1 field'],
    ['', '1 field'],
  ])('refuses %s: %s', (expression, problem) => {
    expect(cronProblem(expression)).toBe(problem);
  });
});
