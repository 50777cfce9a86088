/**
 * The largest body of each endpoint in a simulated world: what the body limits
 * (PITWALL_MAX_BODY_BYTES, PITWALL_MAX_DECODED_BYTES) were chosen from, with a wide margin above
 * the largest. Walks every endpoint of the world through the simulator's HTTP server, without a
 * database, seeding each child from its parent's items as a sync does.
 *
 *   npm run bench:body-sizes -- --scale large
 */
import { parseArgs } from 'node:util';

import { createApiClient } from '../src/api/client.js';
import { canonicalQuery } from '../src/api/query.js';
import { createSilentLogger } from '../src/log.js';
import { startSimulator } from '../src/simulator/server.js';
import type { Scale } from '../src/simulator/world/types.js';
import { itemsOf } from '../src/sync/bad-body.js';
import { ROOTS } from '../src/sync/endpoints.js';
import { walk } from '../src/sync/walk.js';

const { values } = parseArgs({ options: { scale: { type: 'string', default: 'large' }, seed: { type: 'string', default: '1' } } });
const sim = await startSimulator({ scale: values.scale as Scale, seed: Number(values.seed) });
const largest = new Map<string, { bytes: number; params: string; count: number }>();
try {
  const api = createApiClient({ baseUrl: sim.url, apiKey: sim.key, timeoutMs: 60_000, maxAttempts: 1, maxRetryWaitMs: 0, maxRps: 0, logger: createSilentLogger() });
  await walk(
    { roots: ROOTS.map((endpoint) => ({ endpoint, params: {} })) },
    {
      concurrency: 8,
      signal: new AbortController().signal,
      visit: async (ep, params) => {
        const res = await api.get(ep.path, params);
        if (res.kind !== 'ok') return [];
        const seen = largest.get(ep.name) ?? { bytes: 0, params: '', count: 0 };
        seen.count += 1;
        if (res.bytes > seen.bytes) Object.assign(seen, { bytes: res.bytes, params: canonicalQuery(params) });
        largest.set(ep.name, seen);
        return ep.extract(itemsOf(ep, res.body), params, res.body).seeds;
      },
    },
  );
} finally {
  await sim.close();
}
console.log(`largest body per endpoint, ${values.scale} world (seed ${values.seed}), uncompressed bytes:`);
for (const [name, { bytes, params, count }] of [...largest].sort((a, b) => b[1].bytes - a[1].bytes)) {
  console.log(`${name.padEnd(16)} ${String(bytes).padStart(10)}  ${String(count).padStart(6)} requests  largest: ${params}`);
}
