/**
 * The three date forms HTTP allows in Retry-After (RFC 9110 §5.6.7): IMF-fixdate, the obsolete
 * RFC 850 form and asctime. `Date.parse` alone would accept garbage such as "abc 1" as a date.
 */
const IMF_FIXDATE = /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC_850 = /^[A-Za-z]+, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * How long a Retry-After header asks us to wait, in milliseconds, measured from `now`.
 * Accepts delta-seconds or an HTTP date. Returns null when there is nothing usable to honour
 * (missing, garbage, zero, or a date not in the future): the caller then uses its own backoff.
 */
export function parseRetryAfterMs(header: string | null | undefined, now: Date): number | null {
  if (header == null) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) {
    const ms = Number(value) * 1000;
    return ms > 0 && Number.isFinite(ms) ? ms : null;
  }
  let when: number;
  if (IMF_FIXDATE.test(value) || RFC_850.test(value)) when = Date.parse(value);
  // asctime carries no zone but means GMT; Date.parse would read it as local time.
  else if (ASCTIME.test(value)) when = Date.parse(`${value} GMT`);
  else return null;
  if (Number.isNaN(when)) return null;
  const ms = when - now.getTime();
  return ms > 0 ? ms : null;
}
