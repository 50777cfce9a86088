import type { WorldContext } from '../context.js';
import { canonicalTimestamp } from '../dates.js';
import { pointClassOverride, pointClasses, pointsAsOf, standings } from '../derive/standings.js';
import { item } from '../model.js';
import { formatHalfPoints } from '../points.js';
import type { Truth, TruthRow } from '../types.js';

import { text } from './canonical.js';

/** Points years, schedules, classes and standings, for every points schedule. */
export function pointsTruth(
  ctx: WorldContext,
): Pick<Truth, 'point_years' | 'point_schedules' | 'point_classes' | 'point_standings'> {
  const { model } = ctx;
  const years = new Map<number, number>();
  const schedules: TruthRow[] = [];
  const classes: TruthRow[] = [];
  const standingRows: TruthRow[] = [];
  model.schedules.forEach((s, i) => {
    if (!s.points) return;
    years.set(s.year, (years.get(s.year) ?? 0) + 1);
    const scheduleClasses = pointClasses(ctx, i);
    schedules.push({
      schedule_id: s.id,
      schedule_name: text(s.name),
      schedule_desc: text(s.desc),
      schedule_year: s.year,
      class_count: scheduleClasses.length,
    });
    const asOfDay = pointsAsOf(ctx, i);
    const points_as_of = asOfDay === undefined ? null : canonicalTimestamp(asOfDay, 0);
    for (const c of scheduleClasses) {
      const klass = item(model.classes, c);
      classes.push({
        schedule_id: s.id,
        class_id: klass.id,
        class_name: text(klass.name),
        class_name_override: text(pointClassOverride(ctx, i, c)),
        points_as_of,
      });
      for (const st of standings(ctx, i, c)) {
        standingRows.push({
          schedule_id: s.id,
          class_id: klass.id,
          driver_id: item(model.drivers, st.driver).id,
          position: st.position,
          car_number: item(model.carNumbers, st.car),
          point_total: formatHalfPoints(st.halfPoints),
          wins: st.wins,
          top5: st.top5,
          top10: st.top10,
          features: st.features,
          points_as_of,
        });
      }
    }
  });
  return {
    point_years: [...years].map(([year, count]) => ({ year, schedule_count: count })),
    point_schedules: schedules,
    point_classes: classes,
    point_standings: standingRows,
  };
}
