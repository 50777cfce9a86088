/**
 * The simulated world's "today" when a person does not choose one: the machine's local date, as
 * the warehouse's `localtimestamp` reads it. `pitwall simulate` and `pitwall demo` both take it,
 * so a world served by one and the other is the same world (the same seasons, events and
 * results), and the recipes that compare with the clock agree with it on what is past.
 *
 * A world made in code without a today (tests, benchmarks: `createWorld`, `startSimulator`)
 * takes DEFAULT_TODAY instead, a fixed date, so that it is the same on every machine and day.
 */
export function machineToday(now = new Date()): string {
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}
