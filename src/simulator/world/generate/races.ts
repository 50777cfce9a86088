import { FLAG } from '../model.js';
import type { Rng } from '../rng.js';

/**
 * One class's racing at one event: the pill draw splits the field into heats, heat finishes set
 * the feature lineup, and every race is decided by the drivers' skill plus luck. A few cars
 * drop out (DNF), never take the green (DNS: keeps its start, classified last) or are
 * disqualified (DQ: classified after everyone). Pure: all chance comes from `rng`.
 */

export interface RaceOutcome {
  /** Driver indexes in finish order. */
  drivers: number[];
  /** Start position of each row (1-based), parallel to `drivers`. */
  starts: number[];
  flags: number[];
}

export interface EventClassOutcome {
  heats: RaceOutcome[];
  feature: RaceOutcome;
}

const RATES = {
  heat: { dnf: 0.03, dns: 0.01, dq: 0.005 },
  feature: { dnf: 0.06, dns: 0.01, dq: 0.007 },
} as const;

/** Heats of about eight cars, never fewer than two heats or more than four. */
export function heatCount(fieldSize: number): number {
  return Math.min(4, Math.max(2, Math.round(fieldSize / 8)));
}

function runRace(lineup: readonly number[], skill: (driver: number) => number, rng: Rng, feature: boolean): RaceOutcome {
  const rates = feature ? RATES.feature : RATES.heat;
  const running: { driver: number; start: number; pace: number }[] = [];
  const out: { driver: number; start: number; flag: number; pace: number }[] = [];
  lineup.forEach((driver, i) => {
    // Starting up front is worth a little; skill is worth more; luck decides the rest.
    const pace = skill(driver) * 2.2 + rng.next() * 1.6 - i * 0.02;
    const roll = rng.next();
    const flag =
      roll < rates.dq ? FLAG.dq : roll < rates.dq + rates.dns ? FLAG.dns : roll < rates.dq + rates.dns + rates.dnf ? FLAG.dnf : 0;
    if (flag === 0) running.push({ driver, start: i + 1, pace });
    else out.push({ driver, start: i + 1, flag, pace });
  });
  running.sort((a, b) => b.pace - a.pace);
  // Classified after the running cars: retirements by how far they got, then non-starters, then DQs.
  const order = (flag: number) => (flag === FLAG.dnf ? 0 : flag === FLAG.dns ? 1 : 2);
  out.sort((a, b) => order(a.flag) - order(b.flag) || b.pace - a.pace);
  return {
    drivers: [...running.map((r) => r.driver), ...out.map((r) => r.driver)],
    starts: [...running.map((r) => r.start), ...out.map((r) => r.start)],
    flags: [...running.map(() => 0), ...out.map((r) => r.flag)],
  };
}

export function runEventClass(field: readonly number[], skill: (driver: number) => number, rng: Rng): EventClassOutcome {
  const draw = [...field];
  for (let i = draw.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [draw[i], draw[j]] = [draw[j] ?? 0, draw[i] ?? 0];
  }
  const count = heatCount(field.length);
  const heats: RaceOutcome[] = [];
  const heatFinish = new Map<number, { place: number; heat: number }>();
  for (let h = 0; h < count; h++) {
    const heat = runRace(
      draw.filter((_, i) => i % count === h),
      skill,
      rng,
      false,
    );
    heat.drivers.forEach((driver, place) => heatFinish.set(driver, { place, heat: h }));
    heats.push(heat);
  }
  // Feature lineup: heat winners first (heat 1's ahead of heat 2's), then the seconds, and so on.
  const lineup = [...field].sort((a, b) => {
    const fa = heatFinish.get(a) ?? { place: 0, heat: 0 };
    const fb = heatFinish.get(b) ?? { place: 0, heat: 0 };
    return fa.place - fb.place || fa.heat - fb.heat;
  });
  return { heats, feature: runRace(lineup, skill, rng, true) };
}
