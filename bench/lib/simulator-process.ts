/**
 * Child-process entry: serves a simulator until stdin closes, so the benchmark's sync does not
 * share its process (its event loop, its heap) with the upstream it measures. Arguments: scale,
 * seed, latency in ms. Prints one JSON line `{ url, key, resultRows }` once listening.
 */
import { startSimulator } from '../../src/simulator/server.js';
import type { Scale } from '../../src/simulator/world/types.js';

const [scale = 'medium', seed = '1', latencyMs = '0'] = process.argv.slice(2);
const sim = await startSimulator({
  scale: scale as Scale,
  seed: Number(seed),
  faults: { latencyMs: Number(latencyMs) },
});
process.stdout.write(`${JSON.stringify({ url: sim.url, key: sim.key, resultRows: sim.world.summary().resultRows })}\n`);
// The parent ends us by closing our stdin, which also happens when the parent dies.
process.stdin.resume();
process.stdin.on('end', () => void sim.close().then(() => process.exit(0)));
