import { judge, type BenchResults, type Machine, type Sections } from './report.js';

type SectionKey = keyof Sections;
const SECTION_KEYS: readonly SectionKey[] = ['loader', 'e2e', 'noop', 'rebuild', 'memory', 'embedded', 'continued', 'sites'];

/**
 * Refuses to lay a run into `base` made on another machine, Node or PostgreSQL: its figures would
 * not compare with the rest of the table. Checked before the sections run, so a refusal costs none.
 */
export function assertSameMachine(base: Machine, now: Omit<Machine, 'loadAverage'>): void {
  const differs = (['cores', 'node', 'postgres'] as const).filter((k) => base[k] !== now[k]);
  if (differs.length > 0) {
    throw new Error(`--only lays its sections into bench/results/latest.json, whose run had another ${differs.join(', ')} (${differs.map((k) => `${base[k]} there, ${now[k]} here`).join('; ')}): run the whole bench`);
  }
}

/**
 * A full run of some sections alone (`npm run bench -- --only ...`) laid into the last full run's
 * results: its sections replace that run's, the others are kept, the targets are judged again, and
 * `reruns` names the later run's start and load beside the sections it gave, so that every figure
 * of latest.json and of docs/performance.md still says which run it came from.
 */
export function layInto(base: BenchResults, run: BenchResults): BenchResults {
  const ran = SECTION_KEYS.filter((k) => run[k] !== undefined);
  const sections = Object.fromEntries(SECTION_KEYS.flatMap((k) => {
    const figures = run[k] ?? base[k];
    return figures === undefined ? [] : [[k, figures]];
  })) as Sections;
  const earlier = (base.reruns ?? []).map((r) => ({ ...r, sections: r.sections.filter((s) => !ran.includes(s as SectionKey)) })).filter((r) => r.sections.length > 0);
  return {
    mode: base.mode,
    startedAt: base.startedAt,
    machine: base.machine,
    ...sections,
    reruns: [...earlier, { sections: ran, startedAt: run.startedAt, loadAverage: run.machine.loadAverage }],
    targets: judge(sections),
  };
}
