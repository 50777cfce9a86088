/**
 * The metric names a PromQL expression reads. Enough of PromQL for dashboards: strings, label
 * matchers, range and offset durations, grouping clauses and Grafana's `$variables` are taken
 * out; what is left that is an identifier not called as a function and not a keyword is a
 * metric name.
 */

const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);

export function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ') // strings
    .replace(/\$\{[^}]*\}|\$\w+/g, ' ') // Grafana variables: $__rate_interval, ${job}
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\[[^\]]*\]/g, ' ') // ranges and subqueries
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // grouping label lists
    .replace(/\boffset\s+-?\w+/g, ' ');
  const names = new Set<string>();
  for (const m of stripped.matchAll(/[A-Za-z_:][\w:]*/g)) {
    const after = stripped.slice((m.index ?? 0) + m[0].length);
    if (/^\s*\(/.test(after)) continue; // a function or aggregation
    if (KEYWORDS.has(m[0].toLowerCase())) continue;
    if (/^\d/.test(m[0])) continue;
    names.add(m[0]);
  }
  return [...names];
}

/**
 * Every series name a Prometheus text exposition declares: each `# TYPE` name, and for a
 * histogram or summary the `_bucket`, `_sum` and `_count` series it is queried by. Declared,
 * not sampled: a labelled counter that has not counted yet shows its TYPE and no sample.
 */
export function exposedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const m of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = m as unknown as [string, string, string];
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
}

/**
 * The metric names of a Grafana template variable query: `label_values(<series>, <label>)` reads
 * the series (its label is a label, not a metric); `query_result(<expr>)` reads the expression.
 */
export function templateQueryMetricNames(query: string): string[] {
  const labelValues = /^\s*label_values\(\s*(.*),\s*\w+\s*\)\s*$/.exec(query);
  if (labelValues) return promqlMetricNames(labelValues[1]!);
  if (/^\s*label_values\(\s*\w+\s*\)\s*$/.test(query)) return [];
  const queryResult = /^\s*query_result\((.*)\)\s*$/.exec(query);
  return promqlMetricNames(queryResult ? queryResult[1]! : query);
}
