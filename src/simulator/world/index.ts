import { createContext, isScored } from './context.js';
import { dayFromIso, isoFromDay } from './dates.js';
import { DEFAULT_TODAY, generateWorld } from './generate/index.js';
import { eventClassRows } from './model.js';
import { advanceDays, cancelEvent, correctResult, renameDriver, setToday } from './mutations.js';
import { render } from './render/router.js';
import { buildTruth } from './truth/index.js';
import type { World, WorldOptions, WorldSummary } from './types.js';

/**
 * The simulated racing world behind the simulator's HTTP server: deterministic from
 * (seed, scale, today's year), answering the fourteen API endpoints, and able to say what an
 * ingester that walked them all should hold (`truth`). See types.ts for the contract.
 */
export function createWorld(options: WorldOptions): World {
  const model = generateWorld(options);
  const ctx = createContext(model, dayFromIso(options.today ?? DEFAULT_TODAY));

  const summary = (): WorldSummary => {
    let events = 0;
    let eventsWithResults = 0;
    let resultRows = 0;
    model.events.forEach((event, e) => {
      if (ctx.cancelled[e]) return;
      events++;
      if (!isScored(ctx, e)) return;
      eventsWithResults++;
      // An event's event classes, and so their rows, are contiguous.
      const [first] = eventClassRows(model, event.ecStart);
      const [, end] = eventClassRows(model, event.ecStart + event.ecCount - 1);
      resultRows += end - first;
    });
    return {
      seed: model.seed,
      scale: model.scale,
      today: isoFromDay(ctx.today),
      years: [...model.years],
      schedules: model.schedules.length,
      events,
      eventsWithResults,
      classes: model.classes.length,
      drivers: model.drivers.length,
      resultRows,
    };
  };

  return {
    seed: model.seed,
    scale: model.scale,
    today: () => isoFromDay(ctx.today),
    setToday: (date) => setToday(ctx, date),
    advanceDays: (days) => advanceDays(ctx, days),
    correctResult: (correction) => correctResult(ctx, correction),
    cancelEvent: (eventId) => cancelEvent(ctx, eventId),
    renameDriver: (driverId, name) => renameDriver(ctx, driverId, name),
    render: (path, query, quirks) => render(ctx, path, query, quirks),
    truth: () => buildTruth(ctx),
    summary,
  };
}
