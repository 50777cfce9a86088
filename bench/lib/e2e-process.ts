/**
 * Child-process entry for the end-to-end section (see runBenchChild): two full syncs, as
 * benchEndToEnd runs them, in a process that has done nothing else. Arguments: server URL,
 * scale, latency in ms, concurrency. Prints `{ e2e, noop, rebuild }` as one JSON line.
 */
import type { Scale } from '../../src/simulator/world/types.js';
import { benchEndToEnd } from '../e2e.js';

const [server = '', scale = 'medium', latencyMs = '25', concurrency = '8'] = process.argv.slice(2);
const figures = await benchEndToEnd(server, { scale: scale as Scale, latencyMs: Number(latencyMs), concurrency: Number(concurrency) });
process.stdout.write(`${JSON.stringify(figures)}\n`);
