/**
 * Plain-text table for terminal output: left-aligned text, right-aligned numbers. A column is
 * numeric when every value is a number, or when `numericColumns` says so (values that arrive as
 * text, such as a numeric's exact digits). A cell of several lines (wrapText) takes as many lines
 * of its row, the other cells blank below their first.
 */
export function renderTable(headers: string[], rows: Array<Array<string | number | null>>, numericColumns?: readonly boolean[]): string {
  const cells = rows.map((r) => r.map((c) => (c === null ? '' : String(c)).split('\n')));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.flatMap((r) => (r[i] ?? ['']).map((l) => l.length))));
  const numeric = headers.map(
    (_, i) => numericColumns?.[i] ?? (rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || r[i] === null)),
  );
  const line = (r: string[]) =>
    r.map((c, i) => (numeric[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  const rowLines = (r: string[][]) => Array.from({ length: Math.max(1, ...r.map((c) => c.length)) }, (_, n) => line(r.map((c) => c[n] ?? '')));
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.flatMap(rowLines)].join('\n');
}

/**
 * `text` in lines of at most `width` characters, broken at spaces (a word longer than a line is
 * broken inside it): a long error is shown whole in a table's column, never cut.
 */
export function wrapText(text: string, width: number): string {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    for (let rest = word; rest !== ''; ) {
      const room = current === '' ? width : width - current.length - 1;
      if (rest.length <= room) {
        current = current === '' ? rest : `${current} ${rest}`;
        rest = '';
      } else if (current !== '') {
        lines.push(current);
        current = '';
      } else {
        lines.push(rest.slice(0, width));
        rest = rest.slice(width);
      }
    }
  }
  if (current !== '') lines.push(current);
  return lines.join('\n');
}
