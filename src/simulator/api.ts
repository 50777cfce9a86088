import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';

import { answerApiRequest, type ApiContext } from './api-response.js';
import { sendWithFault } from './fault-responses.js';
import { decideFault } from './faults.js';
import { sendJson, sendText } from './http.js';
import type { FaultConfig } from './options.js';
import type { RequestRecorder } from './request-log.js';
import { transportParam } from './transport-params.js';

/**
 * One request outside /__simulator/: log it, then (for /v2/) render its answer and send it,
 * faulted or not, once the configured latency has passed since it arrived. The request is
 * logged before anything can fail. The answer is rendered on arrival, as a server computes a
 * response before it reaches the client, so rendering is part of the latency rather than added
 * to it: with eight requests arriving together, rendering after the wait queued each behind the
 * others' rendering, and the simulator answered 6 ms slower than its latency on average.
 */

export interface ApiState {
  /** What a request with this key is answered from: its site's world, or a refusal of the key. */
  apiContext(key: string | null): ApiContext;
  /** The site whose key this is, 1-based, for the request log; 0 for none. */
  siteOf(key: string | null): number;
  faults(): FaultConfig;
  /** The arrival number of this request since the fault config was last set. */
  nextRequestIndex(): number;
  requests: RequestRecorder;
  /** Aborted when the simulator closes. */
  closing: AbortSignal;
}

export async function handleApiRequest(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  state: ApiState,
): Promise<void> {
  const arrived = performance.now();
  state.requests.recordRequest(url.pathname, url.searchParams, state.siteOf(transportParam(url.searchParams, 'key')));
  if (!url.pathname.startsWith('/v2/')) {
    sendJson(res, 404, { error: `no such resource: ${url.pathname}` });
    return;
  }
  if (req.method !== 'GET') {
    // Version 2 of the upstream supports GET only.
    sendJson(res, 405, { error: `${req.method ?? 'this method'} is not allowed; v2 is GET only` }, { Allow: 'GET' });
    return;
  }

  const config = state.faults();
  const ctx = state.apiContext(transportParam(url.searchParams, 'key'));
  const decision = decideFault(ctx.seed, state.nextRequestIndex(), config);
  const clientGone = new AbortController();
  res.once('close', () => clientGone.abort());
  const signal = AbortSignal.any([state.closing, clientGone.signal]);

  const answer = answerApiRequest(ctx, url.pathname, url.searchParams, { forceInvalid: decision.fault === 'invalid' });
  const remainingMs = decision.latencyMs - (performance.now() - arrived);
  if (remainingMs > 0) {
    const waited = await delay(remainingMs, true, { signal }).catch(() => false);
    if (!waited) {
      res.destroy();
      return;
    }
  }
  if (decision.fault === null) {
    sendText(res, answer.status, answer.contentType, answer.body);
    return;
  }
  if (sendWithFault(res, answer, decision.fault, { config, variant: decision.variant, signal })) {
    state.requests.recordFault(decision.fault);
  }
}
