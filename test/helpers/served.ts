import type pg from 'pg';

import { canonicalQuery } from '../../src/api/query.js';
import { ENDPOINTS } from '../../src/sync/endpoints.js';
import { decompressBody } from '../../src/sync/kept-body.js';

/** `endpoint?params`, as pitwall names a request scope. */
export const scopeName = (endpoint: string, params: string): string => `${endpoint}?${params}`;

/** Indents a body that is JSON, as some servers do; leaves any other text as it is. */
export function indentJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * A fetch that records the text of every 2xx body it returns, by scope: what the upstream
 * served, to compare with what pitwall kept. `served` holds each scope's bodies in order.
 * `rewrite` changes each body on its way from the simulator, as a server in between would.
 */
export function recordingFetch(rewrite?: (text: string) => string): { fetch: typeof fetch; served: Map<string, string[]> } {
  const served = new Map<string, string[]>();
  const recording: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (!res.ok) return res;
    const url = new URL(input instanceof Request ? input.url : String(input));
    const ep = ENDPOINTS.find((e) => e.path === url.pathname);
    if (!ep) throw new Error(`no endpoint serves ${url.pathname}`);
    const params = canonicalQuery(Object.fromEntries(url.searchParams));
    const original = await res.text();
    const text = rewrite ? rewrite(original) : original;
    const name = scopeName(ep.name, params);
    served.set(name, [...(served.get(name) ?? []), text]);
    return new Response(text, { status: res.status, statusText: res.statusText, headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } });
  };
  return { fetch: recording, served };
}

export interface KeptRow {
  responseId: number;
  endpoint: string;
  params: string;
  runId: number;
  responseHash: string;
  bodyBytes: number;
  text: string;
}

/** Every body in pitwall.responses, decompressed, oldest first. */
export async function readKept(pool: pg.Pool): Promise<KeptRow[]> {
  const { rows } = await pool.query<{
    response_id: string;
    endpoint: string;
    params: string;
    run_id: string;
    response_hash: string;
    encoding: string;
    body: Buffer;
    body_bytes: number;
  }>('SELECT response_id, endpoint, params, run_id, response_hash, encoding, body, body_bytes FROM pitwall.responses ORDER BY response_id');
  return Promise.all(
    rows.map(async (r) => ({
      responseId: Number(r.response_id),
      endpoint: r.endpoint,
      params: r.params,
      runId: Number(r.run_id),
      responseHash: r.response_hash,
      bodyBytes: r.body_bytes,
      text: await decompressBody(r.body, r.encoding),
    })),
  );
}
