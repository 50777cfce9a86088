import type { Truth, TruthRow } from '../../src/simulator/world/types.js';
import { fetchTruth } from '../helpers/warehouse.js';

/**
 * Answers computed from the simulator's ground truth (`/__simulator/truth`) in plain TypeScript,
 * independently of the views and recipes they check: the same questions, asked of the world
 * rather than of the warehouse.
 */

export interface ResultRow {
  event_id: number;
  class_id: number;
  race_number: number;
  driver_id: number;
  finish: number;
  start: number;
  dnf: boolean;
  dns: boolean;
  dq: boolean;
}

export interface FeatureRow extends ResultRow {
  year: number;
  event_date: string;
}

export interface Standing {
  schedule_id: number;
  class_id: number;
  driver_id: number;
  position: number;
  point_total: string;
  wins: number;
  top5: number;
  top10: number;
  features: number;
  points_as_of: string;
}

/** The ground truth over HTTP (`/__simulator/truth`), typed as the simulator states it. */
export async function worldTruth(simUrl: string): Promise<Truth> {
  return (await fetchTruth(simUrl)) as unknown as Truth;
}

const rows = <T>(truth: Truth, table: keyof Truth) => truth[table] as unknown as T[];

export const results = (truth: Truth) => rows<ResultRow>(truth, 'results');
export const standings = (truth: Truth) => rows<Standing>(truth, 'point_standings');

export function eventDates(truth: Truth): Map<number, string> {
  return new Map(truth.events.map((e: TruthRow) => [e.event_id as number, e.event_date as string]));
}

/** The latest year of any schedule: "this season". */
export function latestYear(truth: Truth): number {
  return Math.max(...truth.schedules.map((s) => s.schedule_year as number));
}

/** Result rows of feature races: the last race of each class at each event. */
export function featureRows(truth: Truth): FeatureRow[] {
  const feature = new Map<string, number>();
  for (const r of truth.races) {
    const key = `${r.event_id}:${r.class_id}`;
    feature.set(key, Math.max(feature.get(key) ?? 0, r.race_number as number));
  }
  const dates = eventDates(truth);
  return results(truth)
    .filter((r) => feature.get(`${r.event_id}:${r.class_id}`) === r.race_number)
    .map((r) => {
      const event_date = dates.get(r.event_id) ?? '';
      return { ...r, event_date, year: Number(event_date.slice(0, 4)) };
    });
}

export function countBy<T>(items: readonly T[], key: (item: T) => string | number): Map<string | number, number> {
  const counts = new Map<string | number, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

/** `sum / count` rounded half up to `decimals`, in integers, as Postgres' round(numeric) does for positives. */
export function roundedRatio(sum: number, count: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.floor((2 * scale * sum + count) / (2 * count)) / scale;
}

/** `YYYY-MM-DD HH:MM:SS` one calendar month earlier, as `timestamp - interval '1 month'` computes it. */
export function monthBefore(stamp: string): string {
  const [y, m, d] = [Number(stamp.slice(0, 4)), Number(stamp.slice(5, 7)), Number(stamp.slice(8, 10))];
  const [py, pm] = m === 1 ? [y - 1, 12] : [y, m - 1];
  const lastDay = new Date(Date.UTC(py, pm, 0)).getUTCDate();
  return `${py}-${String(pm).padStart(2, '0')}-${String(Math.min(d, lastDay)).padStart(2, '0')}${stamp.slice(10)}`;
}
