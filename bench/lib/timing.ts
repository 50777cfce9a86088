/** The median of some timings (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of nothing');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export const rowsPerSec = (rows: number, ms: number): number => Math.round((rows * 1000) / ms);

export const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100;
