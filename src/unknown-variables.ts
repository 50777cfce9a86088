import { CONFIG_VARIABLES } from './config.js';

/**
 * Environment variables in pitwall's namespaces that no setting reads: most often a misspelt
 * setting (`PITWALL_MAX_RSP`), which would otherwise be ignored without a word while the default
 * applies. Each gets one warning naming the nearest setting.
 */

/** The namespaces a setting's variable lives in; DATABASE_URL and the like are everyone's. */
const NAMESPACES = ['PITWALL_', 'MRP_'];

/**
 * Not settings, but read by pitwall's own test suite, benchmarks and CI (docs/testing.md), which
 * run pitwall with them in the environment: known, so never warned about.
 * test/cli/unknown-variables.test.ts checks that this covers every one they read.
 */
export const TOOLING_VARIABLES: readonly string[] = ['PITWALL_SOAK', 'PITWALL_CRASH_SEED', 'PITWALL_BROWSER'];
const TOOLING_PREFIX = 'PITWALL_TEST_';
/** Edits within which a name is taken for a slip of the setting's: two slips, or a word left out (LEVL). */
const NEAR = 3;

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`: a swap is the commonest slip, MAX_RSP for MAX_RPS. */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(d[i - 1]![j]! + 1, row[j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * One line per variable of `env` in pitwall's namespaces that is neither a setting, nor one
 * `alsoKnown` names (the sources file's `keyEnv` variables), nor the tooling's, in name order.
 */
export function unknownVariableWarnings(env: Readonly<Record<string, string | undefined>>, alsoKnown: readonly string[] = []): string[] {
  const settings = CONFIG_VARIABLES.map((v) => v.env);
  const known = new Set([...settings, ...TOOLING_VARIABLES, ...alsoKnown]);
  return Object.keys(env)
    .filter((name) => NAMESPACES.some((ns) => name.startsWith(ns)) && !known.has(name) && !name.startsWith(TOOLING_PREFIX))
    .sort()
    .map((name) => {
      const [nearest, distance] = settings.map((s) => [s, editDistance(name, s)] as const).reduce((best, next) => (next[1] < best[1] ? next : best));
      const hint = distance <= NEAR ? `did you mean ${nearest}?` : `the nearest setting is ${nearest} (pitwall --help lists them)`;
      return `warning: ${name} is not a setting pitwall reads, so it is ignored; ${hint}`;
    });
}
