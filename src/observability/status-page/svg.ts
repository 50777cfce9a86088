import { escapeHtml } from './escape.js';

export interface Bar {
  /** Shown under its bar (under every few when they are too narrow for each its own), and in its tooltip. */
  label: string;
  value: number;
  /** Drawn in the failure colour. */
  failed: boolean;
  /** The bar's tooltip (an SVG <title>, so no script is needed). */
  detail: string;
}

export interface BarChart {
  title: string;
  /** Formats the axis maximum and the tooltips' values. */
  format: (n: number) => string;
  /** Oldest first: time runs left to right. */
  bars: readonly Bar[];
}

const WIDTH = 560;
const HEIGHT = 130;
const LEFT = 56;
const TOP = 10;
const BOTTOM = 22;
/** A label's width per character at the axis' 10 px font, generously, and the room kept between two labels. */
const LABEL_CHAR_W = 6.5;
const LABEL_GAP = 6;

/** A bar chart as inline SVG: no script, no font or stylesheet from elsewhere. */
export function barChartSvg(chart: BarChart): string {
  const plotW = WIDTH - LEFT - 8;
  const plotH = HEIGHT - TOP - BOTTOM;
  const max = Math.max(0, ...chart.bars.map((b) => b.value));
  const step = chart.bars.length ? plotW / chart.bars.length : plotW;
  const barW = Math.max(1, Math.min(24, step * 0.8));
  const bars = chart.bars.map((b, i) => {
    const h = max > 0 ? Math.max(b.value > 0 ? 1 : 0, (b.value / max) * plotH) : 0;
    const x = LEFT + i * step + (step - barW) / 2;
    const y = TOP + plotH - h;
    return `<rect class="${b.failed ? 'bar failed' : 'bar'}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}"><title>${escapeHtml(`${b.detail}: ${chart.format(b.value)}`)}</title></rect>`;
  });
  // Labels centred under their bars; when bars are narrower than a label, every `every`-th one
  // counted back from the newest (which is always labelled), so none overlaps its neighbour.
  const widest = Math.max(0, ...chart.bars.map((b) => b.label.length)) * LABEL_CHAR_W + LABEL_GAP;
  const every = Math.max(1, Math.ceil(widest / step));
  const labels = [
    ...chart.bars.map((b, i) =>
      (chart.bars.length - 1 - i) % every === 0
        ? `<text x="${(LEFT + i * step + step / 2).toFixed(1)}" y="${HEIGHT - 6}" text-anchor="middle" class="axis">${escapeHtml(b.label)}</text>`
        : '',
    ),
    `<text x="${LEFT - 6}" y="${TOP + 8}" text-anchor="end" class="axis">${escapeHtml(chart.format(max))}</text>`,
    `<text x="${LEFT - 6}" y="${TOP + plotH}" text-anchor="end" class="axis">0</text>`,
    chart.bars.length ? '' : `<text x="${LEFT + plotW / 2}" y="${TOP + plotH / 2}" text-anchor="middle" class="axis">no runs yet</text>`,
  ];
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(chart.title)}">`,
    `<title>${escapeHtml(chart.title)}</title>`,
    `<line x1="${LEFT}" y1="${TOP + plotH}" x2="${WIDTH - 8}" y2="${TOP + plotH}" class="baseline"/>`,
    ...bars,
    ...labels,
    '</svg>',
  ].join('');
}
