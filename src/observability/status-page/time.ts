/** PostgreSQL's timestamptz text as ISO 8601 in UTC. */
export function iso(text: string): string;
export function iso(text: string | null): string | null;
export function iso(text: string | null): string | null {
  if (text === null) return null;
  const t = new Date(text);
  return Number.isNaN(t.getTime()) ? text : t.toISOString();
}

/** Whole seconds from `at` (ISO) to `now` (ms), never negative; null for never. */
export const ageSeconds = (at: string | null, now: number): number | null => (at === null ? null : Math.max(0, Math.round((now - Date.parse(at)) / 1000)));
