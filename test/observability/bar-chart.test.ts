import { describe, expect, it } from 'vitest';

import { barChartSvg, type Bar } from '../../src/observability/status-page/svg.js';

const bars = (n: number): Bar[] => Array.from({ length: n }, (_, i) => ({ label: `#${101 + i}`, value: i + 1, failed: false, detail: `run ${101 + i}` }));

/** Each label's text and x, and each bar's centre, from the SVG. */
function layout(svg: string) {
  const labels = [...svg.matchAll(/<text x="([\d.]+)"[^>]*text-anchor="middle" class="axis">(#\d+)<\/text>/g)].map((m) => ({ label: m[2]!, x: Number(m[1]) }));
  const centres = [...svg.matchAll(/<rect class="bar" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g)].map((m) => Number(m[1]) + Number(m[2]) / 2);
  return { labels, centres };
}

describe('a chart of runs', () => {
  it('puts each run\'s label under its own bar', () => {
    const { labels, centres } = layout(barChartSvg({ title: 'runs', format: String, bars: bars(5) }));
    expect(labels.map((l) => l.label)).toEqual(['#101', '#102', '#103', '#104', '#105']);
    labels.forEach((l, i) => expect(Math.abs(l.x - centres[i]!)).toBeLessThan(0.2));
  });

  it('labels every few bars, the newest always, when the bars are too narrow for a label each, each still under its bar', () => {
    const { labels, centres } = layout(barChartSvg({ title: 'runs', format: String, bars: bars(30) }));
    expect(labels.length).toBeLessThan(30);
    expect(labels.at(-1)?.label).toBe('#130');
    for (const l of labels) expect(Math.abs(l.x - centres[Number(l.label.slice(1)) - 101]!)).toBeLessThan(0.2);
    // Far enough apart not to overlap: 4 characters at the axis' 10 px font.
    labels.slice(1).forEach((l, i) => expect(l.x - labels[i]!.x).toBeGreaterThan(24));
  });
});
