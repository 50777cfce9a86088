import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Bytes the files under `dir` take, links not followed; what cannot be read counts 0. */
export function directoryBytes(dir: string): number {
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return 0;
  }
  return names.reduce((sum, name) => {
    try {
      const stat = lstatSync(join(dir, name));
      return stat.isFile() ? sum + stat.size : sum;
    } catch {
      return sum; // Removed meanwhile (a WAL segment recycled).
    }
  }, 0);
}

/** `73 MB`: a directory's size as a person weighs it. */
export const megabytes = (bytes: number): string => `${Math.round(bytes / 1_000_000)} MB`;
