/** Plain-text table for terminal output: left-aligned text, right-aligned numbers. */
export function renderTable(headers: string[], rows: Array<Array<string | number | null>>): string {
  const cells = rows.map((r) => r.map((c) => (c === null ? '' : String(c))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || r[i] === null));
  const line = (r: string[]) =>
    r.map((c, i) => (numeric[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}
