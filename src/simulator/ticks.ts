/**
 * .NET ticks: 100-nanosecond intervals since 0001-01-01T00:00:00, the unit of the upstream's
 * `RequestCachedTicks`. Today's values are about 6.4e17, far past Number.MAX_SAFE_INTEGER
 * (9.0e15), so they are BigInts and must be written into JSON text by hand.
 */

/** Ticks at the Unix epoch, 1970-01-01T00:00:00Z. */
const TICKS_AT_UNIX_EPOCH = 621_355_968_000_000_000n;
const TICKS_PER_MILLISECOND = 10_000n;

export function dotNetTicks(unixMs: number): bigint {
  return BigInt(Math.trunc(unixMs)) * TICKS_PER_MILLISECOND + TICKS_AT_UNIX_EPOCH;
}

/**
 * The cache timestamp of every response on a simulated day: noon UTC of the world's `today`.
 * Taken from the simulated calendar, never the wall clock, so equal seeds give equal bytes.
 */
export function ticksAtNoon(today: string): bigint {
  const unixMs = Date.parse(`${today}T12:00:00Z`);
  if (Number.isNaN(unixMs)) throw new RangeError(`not a YYYY-MM-DD date: ${today}`);
  return dotNetTicks(unixMs);
}
