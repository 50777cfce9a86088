/** A wall-clock time in some time zone; month 1-12. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock time at `instant` in `timeZone`. */
export function wallTime(instant: Date, timeZone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(instant)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 0,
    day: parts.day ?? 0,
    hour: (parts.hour ?? 0) % 24,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

const asUtcMs = (t: WallTime) => Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);

/** How far `timeZone`'s clock is ahead of UTC at `instantMs`, in ms. */
function offsetMs(instantMs: number, timeZone: string): number {
  return asUtcMs(wallTime(new Date(instantMs), timeZone)) - Math.floor(instantMs / 1000) * 1000;
}

const DAY_MS = 86_400_000;

/**
 * The instants at which `timeZone`'s clocks read `t`: none in a spring-forward gap, two in a
 * fall-back hour, one otherwise. Offsets are taken a day either side: no zone changes its offset
 * twice within two days.
 */
export function instantsOf(t: WallTime, timeZone: string): Date[] {
  const guess = asUtcMs(t);
  const offsets = new Set([offsetMs(guess - DAY_MS, timeZone), offsetMs(guess + DAY_MS, timeZone)]);
  const target = asUtcMs(t);
  return [...offsets]
    .map((offset) => guess - offset)
    .filter((ms) => asUtcMs(wallTime(new Date(ms), timeZone)) === target)
    .sort((a, b) => a - b)
    .map((ms) => new Date(ms));
}
