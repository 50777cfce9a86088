import { DRIVER_COLUMNS } from '../endpoints/driver.js';
import type { Endpoint } from '../endpoints/endpoint.js';

import { driverLevelPath } from './overrides.js';

/** Per endpoint, per level path, the wire fields its declaration names: what a shapes file may adjust. */
export type ShapeCatalog = ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>;

const DRIVER_FIELDS: ReadonlySet<string> = new Set(['DriverId', ...Object.values(DRIVER_COLUMNS)]);

export function shapeCatalog(endpoints: readonly Endpoint[]): ShapeCatalog {
  const out = new Map<string, Map<string, ReadonlySet<string>>>();
  for (const ep of endpoints) {
    const levels = new Map<string, ReadonlySet<string>>();
    for (const l of ep.levels) {
      const { spec } = l;
      const fields = [
        ...Object.values(spec.keys ?? {}),
        ...Object.values(spec.columns ?? {}),
        ...Object.values(spec.known ?? {}),
        ...(spec.className ? [spec.className] : []),
      ].map((f) => f.wire);
      levels.set(l.path, new Set(fields));
      if (spec.driver) levels.set(driverLevelPath(l.path), DRIVER_FIELDS);
    }
    out.set(ep.name, levels);
  }
  return out;
}
