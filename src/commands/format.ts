/**
 * Plain-text table for terminal output: left-aligned text, right-aligned numbers. A column is
 * numeric when every value is a number, or when `numericColumns` says so (values that arrive as
 * text, such as a numeric's exact digits).
 */
export function renderTable(headers: string[], rows: Array<Array<string | number | null>>, numericColumns?: readonly boolean[]): string {
  const cells = rows.map((r) => r.map((c) => (c === null ? '' : String(c))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map(
    (_, i) => numericColumns?.[i] ?? (rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || r[i] === null)),
  );
  const line = (r: string[]) =>
    r.map((c, i) => (numeric[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}
