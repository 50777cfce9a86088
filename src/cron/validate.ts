import { validateDetailed } from 'node-cron';

/** node-cron's shorthands, resolved the way it resolves them (case-insensitive, trimmed). */
const NICKNAMES: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface Field {
  name: string;
  min: number;
  max: number;
  /** Name → value, for the fields that take names. */
  names?: ReadonlyMap<string, number>;
  /** Checks node-cron's field-specific tokens (L, W, #); null when `token` is not one. */
  special?: (token: string) => string | null | undefined;
}

const named = (lists: readonly (readonly string[])[], first: number) =>
  new Map(lists.flatMap((list) => list.map((name, i) => [name, i + first] as const)));

/**
 * Day-of-month tokens: L (the last day). node-cron also reads L-n (n days before it) and nW / LW
 * (the nearest weekday), which cron-parser, that computes the previous fire for the catch-up,
 * does not: refused, so the two never disagree about when a schedule fired.
 */
function daySpecial(token: string): string | null | undefined {
  if (/^L$/i.test(token)) return null;
  if (/^L-\d+$/i.test(token)) return `${token}: days before the last (L-n) are not supported; name the days`;
  if (/^(\d+|L)W$/i.test(token)) return `${token}: the nearest weekday (W) is not supported; name the days`;
  return undefined;
}

/** Weekday tokens: nL (last such weekday of the month), n#m (the m-th one). */
function weekdaySpecial(token: string): string | null | undefined {
  const last = /^(\d+)L$/i.exec(token);
  if (last) return inRange(Number(last[1]), 0, 7) ? null : `weekday ${last[1]} in ${token} is out of 0-7`;
  const nth = /^(\d+)#(\d+)$/.exec(token);
  if (nth) {
    if (!inRange(Number(nth[1]), 0, 7)) return `weekday ${nth[1]} in ${token} is out of 0-7`;
    return inRange(Number(nth[2]), 1, 5) ? null : `occurrence ${nth[2]} in ${token} is out of 1-5`;
  }
  return undefined;
}

const SECOND: Field = { name: 'second', min: 0, max: 59 };
const FIVE_FIELDS: readonly Field[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day', min: 1, max: 31, special: daySpecial },
  { name: 'month', min: 1, max: 12, names: named([MONTHS], 1) },
  // 0 and 7 are both Sunday.
  { name: 'weekday', min: 0, max: 7, names: named([WEEKDAYS], 0), special: weekdaySpecial },
];

function inRange(n: number, min: number, max: number): boolean {
  return Number.isInteger(n) && n >= min && n <= max;
}

/** A single value of `field` (a number or a name), or the problem with it. */
function valueProblem(field: Field, text: string): string | null {
  if (/^\d+$/.test(text)) {
    return inRange(Number(text), field.min, field.max) ? null : `${field.name} ${text} is out of ${field.min}-${field.max}`;
  }
  if (field.names?.has(text.toLowerCase())) return null;
  // Three-letter names only: node-cron also reads `february`, cron-parser does not.
  return `${field.name} "${text}" is not a number${field.names ? ' or a three-letter name' : ''}`;
}

function tokenProblem(field: Field, token: string): string | null {
  const special = field.special?.(token);
  if (special !== undefined) return special;
  const [base = '', step, ...extra] = token.split('/');
  if (extra.length > 0) return `${field.name} "${token}" has more than one step`;
  if (step !== undefined) {
    // A step of the field's span or more matches its first value only: `*/61` would silently mean hourly.
    const span = field.max - field.min;
    if (!/^\d+$/.test(step) || !inRange(Number(step), 1, span)) return `${field.name} step ${step} is out of 1-${span}`;
    if (base !== '*' && !base.includes('-')) return `${field.name} "${token}": a step goes after * or a range`;
  }
  if (base === '*') return null;
  const bounds = base.split('-');
  if (bounds.length > 2) return `${field.name} "${base}" is not a range`;
  for (const bound of bounds) {
    const problem = valueProblem(field, bound);
    if (problem) return problem;
  }
  const [low, high] = bounds.map((b) => (/^\d+$/.test(b) ? Number(b) : (field.names?.get(b.toLowerCase()) ?? 0)));
  if (high !== undefined && low !== undefined && low > high) return `${field.name} range ${base} runs backwards (low > high)`;
  return null;
}

function fieldProblem(field: Field, text: string): string | null {
  // node-cron reads `?` as `*` only when it is the whole day or weekday field.
  if (text === '?' && (field.name === 'day' || field.name === 'weekday')) return null;
  for (const token of text.split(',')) {
    if (token === '') return `${field.name} "${text}" has an empty list item`;
    const problem = tokenProblem(field, token);
    if (problem) return problem;
  }
  return null;
}

/** Whether a day or weekday field narrows the days: anything but `*` or `?`. */
const restricted = (text: string) => text !== '*' && text !== '?';

/** The expression with node-cron's nicknames (`@daily`, …) replaced by their five fields. */
export function resolveCronNickname(expression: string): string {
  const trimmed = expression.trim();
  return NICKNAMES[trimmed.toLowerCase()] ?? trimmed;
}

/**
 * Why `expression` is refused, in a few words ("hour 25 is out of 0-23"), or null when it is a
 * valid schedule. It must mean the same to node-cron, which fires the schedules, and to
 * cron-parser, which finds their last fire for the catch-up: so besides what node-cron refuses,
 * steps beyond a field's span (node-cron reads `*\/61` as `0`), backwards ranges (node-cron wraps
 * them), a step after a single value (node-cron never fires on `5/15`), the tokens cron-parser
 * lacks (L-n, nW, LW) and a day of month with a weekday (node-cron reads both, cron-parser either).
 */
export function cronProblem(expression: string): string | null {
  const resolved = resolveCronNickname(expression);
  const texts = resolved.split(/\s+/);
  if (texts.length !== 5 && texts.length !== 6) return `${texts.length} field${texts.length === 1 ? '' : 's'}`;
  const fields = texts.length === 6 ? [SECOND, ...FIVE_FIELDS] : FIVE_FIELDS;
  for (const [i, field] of fields.entries()) {
    const problem = fieldProblem(field, texts[i] ?? '');
    if (problem) return problem;
  }
  // node-cron fires when both match, cron-parser (and classic cron) when either does.
  const first = texts.length - 5; // the minute's index: 1 when seconds lead
  if (restricted(texts[first + 2] ?? '*') && restricted(texts[first + 4] ?? '*')) {
    return 'a day of month and a weekday together are read as either by some cron engines and as both by others; restrict one (1#2 is the second Monday)';
  }
  // Whatever else node-cron refuses (a day no month in the list has, such as 31 in February).
  const checked = validateDetailed(resolved);
  return checked.valid ? null : (checked.errors[0]?.message ?? 'not accepted by node-cron');
}
