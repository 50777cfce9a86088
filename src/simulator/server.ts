import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { ADMIN_PREFIX, handleAdminRequest, type AdminContext } from './admin.js';
import { handleApiRequest, type ApiState } from './api.js';
import { sendJson } from './http.js';
import {
  siteKey,
  type FaultConfig,
  faultConfigSchema,
  type FaultOptions,
  parseSimulatorOptions,
  type QuirkOptions,
  quirksSchema,
  type SimulatorOptions,
} from './options.js';
import { createRequestRecorder, type RequestLog } from './request-log.js';
import { createWorld } from './world/index.js';
import type { Quirks, World } from './world/types.js';

export { SIMULATOR_KEY } from './options.js';
export type { SimulatorOptions } from './options.js';

/**
 * An HTTP server that answers like the MyRacePass v2 API, over a simulated racing world.
 * The world (src/simulator/world/) knows racing and wire shapes; this file knows HTTP: the
 * lifecycle, the routing between the API and the admin API, and the state both share.
 */

/** One site the simulator serves: its key and the world that key sees. */
export interface SimulatedSite {
  key: string;
  world: World;
}

export interface RunningSimulator {
  /** Base URL without `/v2`, e.g. `http://127.0.0.1:4321`. */
  url: string;
  /** The first site's key and world: the only ones of a single-site simulator. */
  key: string;
  world: World;
  /** Every site, in order (one unless started with `sites`). */
  sites: readonly SimulatedSite[];
  /** Stops accepting a site's key (answered as a refused key from then on); `restore` takes it back. */
  revokeKey(key: string, restore?: boolean): void;
  /** Replaces the fault config (omitted fields take defaults) and restarts the fault sequence. */
  setFaults(faults: FaultOptions): void;
  /** Replaces the quirks (omitted fields take DEFAULT_QUIRKS). */
  setQuirks(quirks: QuirkOptions): void;
  /** Turns drifted bodies (src/simulator/drift.ts) on or off. */
  setDrift(drift: boolean): void;
  requests(): RequestLog;
  resetRequests(): void;
  /** Stops listening and ends every connection, stalled ones included. Safe to call twice. */
  close(): Promise<void>;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const config = parseSimulatorOptions(options);
  const build = (site?: { site: number; sites: number }) =>
    createWorld({ seed: config.seed, scale: config.scale ?? 'small', ...(config.today && { today: config.today }), ...site });
  const count = config.sites;
  const sites: SimulatedSite[] =
    count === undefined
      ? [{ key: config.key, world: config.world ?? build() }]
      : Array.from({ length: count }, (_, i) => ({ key: siteKey(i + 1), world: build({ site: i + 1, sites: count }) }));
  const [first] = sites as [SimulatedSite];
  // Looked up on every request: a map, as a thousand sites make a list's search the hot path.
  const siteByKey = new Map(sites.map((s, i) => [s.key, { site: s, number: i + 1 }]));
  const world = first.world;
  const revoked = new Set<string>();
  // A key no site has: what an unknown or revoked key is compared with, so it is refused.
  const NO_KEY = '\u0000refused';

  let faults: FaultConfig = config.faults;
  let quirks: Quirks = config.quirks;
  let drift = config.drift;
  let requestIndex = 0;
  const requests = createRequestRecorder();
  const closing = new AbortController();

  const setFaults = (next: FaultConfig): void => {
    faults = next;
    // A new config starts its own sequence, so a test phase sees the same faults however much
    // traffic came before it.
    requestIndex = 0;
  };
  const apiState: ApiState = {
    apiContext: (key) => {
      const site = key !== null && !revoked.has(key) ? siteByKey.get(key)?.site : undefined;
      return { world: site?.world ?? world, seed: config.seed, key: site?.key ?? NO_KEY, quirks, invalidRequest: config.invalidRequest, drift };
    },
    siteOf: (key) => (key === null ? 0 : (siteByKey.get(key)?.number ?? 0)),
    faults: () => faults,
    nextRequestIndex: () => requestIndex++,
    requests,
    closing: closing.signal,
  };
  const adminContext: AdminContext = {
    world,
    sites,
    requests,
    faults: () => faults,
    setFaults,
    quirks: () => quirks,
    setQuirks: (next) => void (quirks = next),
    drift: () => drift,
    setDrift: (next) => void (drift = next),
  };

  const server = createServer((req, res) => {
    dispatch(req, res, apiState, adminContext).catch((err: unknown) => {
      // A bug in the world or here: answer 500 with the message, since this is a test fixture.
      if (!res.headersSent) sendJson(res, 500, { error: err instanceof Error ? err.message : String(err) });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closed: Promise<void> | undefined;

  return {
    url: `http://${host}:${port}`,
    key: first.key,
    world,
    sites,
    revokeKey: (key, restore = false) => void (restore ? revoked.delete(key) : revoked.add(key)),
    setFaults: (next) => setFaults(faultConfigSchema.parse(next)),
    setQuirks: (next) => void (quirks = quirksSchema.parse(next)),
    setDrift: (next) => void (drift = next),
    requests: () => requests.snapshot(),
    resetRequests: () => requests.reset(),
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        // close() alone waits for keep-alive and stalled ('slow') connections; end them now.
        server.closeAllConnections();
      })),
  };
}

async function dispatch(req: IncomingMessage, res: ServerResponse, api: ApiState, admin: AdminContext): Promise<void> {
  // Prefixing rather than resolving against a base: a target like `//host/v2/` stays a path.
  const url = new URL(`http://simulator.invalid${req.url ?? '/'}`);
  if (url.pathname.startsWith(ADMIN_PREFIX)) await handleAdminRequest(req, res, url, admin);
  else await handleApiRequest(req, res, url, api);
}
