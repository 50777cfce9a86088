import pg from 'pg';

import { COOKBOOK } from '../../src/analytics/cookbook.js';

/** The recipe the BI client refreshes: a dashboard tile's query, no parameters. */
export const BI_RECIPE = 'feature-wins-this-season';

export interface BiFailure {
  /** Milliseconds since the soak started. */
  atMs: number;
  error: string;
}

export interface BiClient {
  queries: number;
  rowsLastSeen: number;
  reconnects: number;
  failures: BiFailure[];
  /** Stops polling and closes the session; safe to call twice. */
  stop(): Promise<void>;
}

export interface BiLogin {
  host: string;
  port: number;
  user: string;
  password: string;
}

/**
 * A BI tool's session on the warehouse: one connection that runs the same cookbook query every
 * `everyMs`. A failed query is counted with its time; the session is then dropped and opened
 * again at the next refresh, as a BI tool does when its connection breaks.
 */
export function startBiClient(login: BiLogin, everyMs: number, since: number): BiClient {
  const sql = COOKBOOK.find((r) => r.id === BI_RECIPE)!.sql;
  let client: pg.Client | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const bi: BiClient = { queries: 0, rowsLastSeen: 0, reconnects: 0, failures: [], stop: async () => undefined };

  const connect = async () => {
    const c = new pg.Client({ ...login, database: 'postgres', application_name: 'soak-bi', query_timeout: 30_000, connectionTimeoutMillis: 10_000 });
    // A dropped connection emits 'error' on an idle client; the next query finds it broken.
    c.on('error', () => undefined);
    await c.connect();
    return c;
  };
  const poll = async () => {
    bi.queries += 1;
    try {
      if (!client) {
        if (bi.queries > 1) bi.reconnects += 1;
        client = await connect();
      }
      bi.rowsLastSeen = (await client.query(sql)).rowCount ?? 0;
    } catch (err) {
      bi.failures.push({ atMs: Math.round(performance.now() - since), error: (err as Error).message.slice(0, 200) });
      const broken = client;
      client = null;
      await broken?.end().catch(() => undefined);
    }
  };
  const tick = () => {
    inFlight = poll().finally(() => {
      if (!stopped) timer = setTimeout(tick, everyMs);
    });
  };
  tick();
  bi.stop = async () => {
    stopped = true;
    clearTimeout(timer);
    await inFlight;
    await client?.end().catch(() => undefined);
    client = null;
  };
  return bi;
}
