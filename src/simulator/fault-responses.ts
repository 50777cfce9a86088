import type { ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';

import type { ApiAnswer } from './api-response.js';
import { injectDoubleComma } from './double-comma.js';
import { retryAfterHeader } from './faults.js';
import { sendText } from './http.js';
import type { FaultConfig, FaultKind } from './options.js';

/**
 * Sends an answer spoiled by one fault, the way a flaky upstream or network would spoil it.
 * Returns whether the fault was applied: `doubleComma` needs an array of two or more items and
 * `invalid` needs an envelope, and a fault that could not be applied is not counted.
 */

export interface FaultContext {
  config: FaultConfig;
  /** A uniform number in [0, 1) for choices inside the fault. */
  variant: number;
  /** Aborted when the client goes away or the simulator closes: ends a stalled response. */
  signal: AbortSignal;
}

const STATUSES = {
  http429: [429, 'Too Many Requests'],
  http500: [500, 'Internal Server Error'],
  http502: [502, 'Bad Gateway'],
  http503: [503, 'Service Unavailable'],
} as const;

export function sendWithFault(res: ServerResponse, answer: ApiAnswer, fault: FaultKind, ctx: FaultContext): boolean {
  switch (fault) {
    case 'http429':
    case 'http500':
    case 'http502':
    case 'http503': {
      // Error pages from IIS or a proxy are HTML, not JSON: a client must not parse them.
      const [code, text] = STATUSES[fault];
      const retryable = code === 429 || code === 503;
      const headers: Record<string, string> = retryable ? { 'Retry-After': retryAfterHeader(ctx.config) } : {};
      const page = `<html><body><h1>${code} ${text}</h1></body></html>`;
      sendText(res, code, 'text/html; charset=utf-8', page, headers);
      return true;
    }
    case 'reset':
      // resetAndDestroy sends a TCP RST, so the client sees ECONNRESET rather than a clean close.
      res.socket?.resetAndDestroy();
      return true;
    case 'slow':
      // Not awaited: the stall is the response's business; it ends on its own or on ctx.signal.
      void sendSlowly(res, answer, ctx);
      return true;
    case 'truncated':
      sendTruncated(res, answer, ctx.variant);
      return true;
    case 'invalid':
      // The caller rendered the answer with RequestValid 0 already.
      sendText(res, answer.status, answer.contentType, answer.body);
      return answer.envelope;
    case 'doubleComma': {
      const spoiled = answer.envelope ? injectDoubleComma(answer.body, ctx.variant) : null;
      sendText(res, answer.status, answer.contentType, spoiled ?? answer.body);
      return spoiled !== null;
    }
  }
}

/** Headers now, body after `slowMs`: a client without a read timeout hangs for that long. */
async function sendSlowly(res: ServerResponse, answer: ApiAnswer, ctx: FaultContext): Promise<void> {
  res.writeHead(answer.status, {
    'Content-Type': answer.contentType,
    'Content-Length': String(Buffer.byteLength(answer.body)),
  });
  res.flushHeaders();
  const waited = await delay(ctx.config.slowMs, true, { signal: ctx.signal }).catch(() => false);
  if (waited) res.end(answer.body);
  else res.destroy();
}

/** The full Content-Length, part of the body, then the connection ends. */
function sendTruncated(res: ServerResponse, answer: ApiAnswer, variant: number): void {
  const bytes = Buffer.from(answer.body);
  // Cut somewhere inside the body, never at its ends, so the part is never the whole.
  const cut = Math.max(1, Math.min(bytes.length - 1, Math.floor(variant * bytes.length)));
  res.writeHead(answer.status, { 'Content-Type': answer.contentType, 'Content-Length': String(bytes.length) });
  res.write(bytes.subarray(0, cut), () => res.destroy());
}
