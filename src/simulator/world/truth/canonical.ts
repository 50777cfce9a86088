/** The ground truth's value forms (see `Truth` in types.ts). */

/** Text as the warehouse holds it: the upstream's "" (no value) is null. */
export function text(value: string): string | null {
  return value === '' ? null : value;
}
