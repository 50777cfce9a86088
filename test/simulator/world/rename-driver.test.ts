import { describe, expect, it } from 'vitest';

import { createWorld } from '../../../src/simulator/world/index.js';
import { DEFAULT_QUIRKS } from '../../../src/simulator/world/types.js';

import { walk } from './helpers.js';

describe('renaming a driver', () => {
  it('changes the name in every response and table that carries it', () => {
    const world = createWorld({ seed: 5, scale: 'tiny' });
    const driverId = world.truth().point_standings[0]?.driver_id as number;
    world.renameDriver(driverId, { firstName: 'Zoë', lastName: "D'Ångström" });

    const truth = world.truth();
    expect(truth.drivers.find((d) => d.driver_id === driverId)).toMatchObject({ first_name: 'Zoë', last_name: "D'Ångström" });
    const rows = truth.results.filter((r) => r.driver_id === driverId);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(String(r.driver_name).startsWith("Zoë D'Ångström")).toBe(true);

    // Every Driver object with this id, in every response of the walk, carries the new name.
    let seen = 0;
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(visit);
      else if (value && typeof value === 'object') {
        const o = value as Record<string, unknown>;
        if (o.DriverId === driverId) {
          expect([o.DriverFName, o.DriverLName]).toEqual(['Zoë', "D'Ångström"]);
          seen++;
        }
        Object.values(o).forEach(visit);
      }
    };
    for (const r of walk(world, DEFAULT_QUIRKS)) visit(r.items);
    expect(seen).toBeGreaterThan(rows.length);
    expect(() => world.renameDriver(1, { firstName: 'Nobody' })).toThrow();
  });
});
