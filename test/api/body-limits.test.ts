import http from 'node:http';
import { deflateRawSync } from 'node:zlib';

import { describe, expect, it } from 'vitest';

import { ByteBudget } from '../../src/api/byte-budget.js';
import { createApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/errors.js';
import { httpGet } from '../../src/api/http-get.js';
import { BodyDecodeError, BodyTooLargeError } from '../../src/api/read-body.js';
import { createSilentLogger } from '../../src/log.js';
import { gzipBomb } from '../helpers/hostile-upstream.js';
import { useHttpServer } from '../helpers/http-server.js';

const MiB = 1024 * 1024;
const OK = JSON.stringify({ RequestValid: 1, ItemsReturned: 1, Schedules: [{ ScheduleId: 5508 }] });
/** 64 MiB of zeros, raw deflate: about 64 KB sent. (The gzip bomb inflates to 1 GiB: gzipBomb.) */
const DEFLATE_BOMB = deflateRawSync(Buffer.alloc(64 * MiB), { level: 9 });

/** Requests the /mixed path has had. */
let mixed = 0;
/** Bytes the endless path had written, and when its client went away (the connection closed). */
let endlessSent = 0;
let endlessClosed: Promise<void> = Promise.resolve();

function server(): http.Server {
  return http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/declared') return void res.writeHead(200, { 'content-length': String(64 * MiB) }).end(Buffer.alloc(64 * MiB, 0x20));
    if (path === '/endless') {
      // Chunked, never ending: whitespace as fast as the client reads it.
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      endlessSent = 0;
      endlessClosed = new Promise((resolve) => res.once('close', () => resolve()));
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) endlessSent += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      return pump();
    }
    if (path === '/gzip-bomb') return void res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipBomb());
    if (path === '/deflate-bomb') return void res.writeHead(200, { 'content-encoding': 'deflate' }).end(DEFLATE_BOMB);
    if (path === '/broken-gzip') return void res.writeHead(200, { 'content-encoding': 'gzip' }).end(Buffer.from('not gzip at all'));
    if (path === '/trickle') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const timer = setInterval(() => res.write(' '), 50);
      return void res.on('close', () => clearInterval(timer));
    }
    if (path === '/mixed') {
      // By the request's number: 503, trickle, 503, trickle, then the answer.
      const step = ['503', 'trickle', '503', 'trickle'][(mixed += 1) - 1] ?? 'ok';
      if (step === '503') return void res.writeHead(503).end();
      if (step === 'trickle') return void (res.writeHead(200, { 'content-type': 'application/json' }), res.write('{'));
    }
    if (path === '/moved') return void res.writeHead(302, { location: 'https://elsewhere.example:8443/v2/schedules/?key=abc&ScheduleYear=2025' }).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(OK);
  });
}

describe('limits on a body, enforced while it is read', () => {
  const served = useHttpServer(server());

  const read = async (path: string, maxBytes = 8 * MiB, maxDecodedBytes = 8 * MiB) => {
    const res = await httpGet(`${served.base()}${path}`, { signal: AbortSignal.timeout(20_000), headers: {}, limits: { maxBytes, maxDecodedBytes } });
    return res.arrayBuffer();
  };

  it('refuses a body whose Content-Length passes the limit before reading it, and stops an endless one at the limit', async () => {
    await expect(read('/declared')).rejects.toMatchObject({ name: 'BodyTooLargeError', measure: 'received', declared: 64 * MiB });
    await expect(read('/endless')).rejects.toBeInstanceOf(BodyTooLargeError);
    // The client drops the connection at the limit (a client that only stopped reading would
    // leave it open, and this would time out); the server stops a little past it (socket buffers).
    await endlessClosed;
    expect(endlessSent).toBeLessThan(8 * MiB + 8 * MiB);
  });

  it('stops inflating a gzip or deflate bomb at the decoded limit, off the event loop and without its gigabyte', async () => {
    const rssBefore = process.memoryUsage().rss;
    for (const path of ['/gzip-bomb', '/deflate-bomb']) {
      // Inflated a chunk at a time, the event loop turning between chunks; one synchronous call
      // would hand over one chunk with no turn in between. Counted, not timed.
      let decoded = 0;
      let chunks = 0;
      let turns = 0;
      let reading = true;
      const turn = () => {
        turns += 1;
        if (reading) setImmediate(turn);
      };
      setImmediate(turn);
      const onDecoded = (n: number) => ((decoded += n), (chunks += 1), null);
      const res = await httpGet(`${served.base()}${path}`, { signal: AbortSignal.timeout(60_000), headers: {}, limits: { maxBytes: 8 * MiB, maxDecodedBytes: 8 * MiB, onDecoded } });
      const err: unknown = await res.arrayBuffer().catch((e: unknown) => e);
      reading = false;
      expect(err).toMatchObject({ name: 'BodyTooLargeError', measure: 'decoded', limit: 8 * MiB });
      expect(String(err)).toMatch(/more than 8 MiB after decoding; the limit is 8 MiB \(PITWALL_MAX_DECODED_BYTES\)/);
      // Stopped at the limit: the chunk that passed it is the last one inflated.
      expect(decoded).toBeLessThanOrEqual(8 * MiB + 64 * 1024);
      expect(chunks).toBeGreaterThan(100);
      expect(turns).toBeGreaterThan(10);
    }
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * MiB);
  });

  it('says a broken encoding is broken', async () => {
    await expect(read('/broken-gzip')).rejects.toBeInstanceOf(BodyDecodeError);
  });

  it('holds every decoded byte in the budget until the body is released', async () => {
    const budget = new ByteBudget(64 * MiB);
    const client = createApiClient({
      baseUrl: served.base(),
      apiKey: 'test-key',
      timeoutMs: 5_000,
      maxAttempts: 1,
      maxRetryWaitMs: 0,
      maxRps: 0,
      logger: createSilentLogger(),
      body: { maxBytes: MiB, maxDecodedBytes: MiB, budget },
    });
    const held = await client.get('/v2/schedules/', {}, { holdBody: true });
    expect(held.kind).toBe('ok');
    expect(budget.used).toBe(OK.length);
    if (held.kind === 'ok') held.release();
    expect(budget.used).toBe(0);
    await client.get('/v2/schedules/', {});
    expect(budget.used).toBe(0);
    await expect(client.get('/gzip-bomb', {})).rejects.toMatchObject({ kind: 'too-large' });
    expect(budget.used).toBe(0);
  });

  describe('the client', () => {
    const client = (timeoutMs = 5_000) =>
      createApiClient({
        baseUrl: served.base(),
        apiKey: 'test-key',
        timeoutMs,
        maxAttempts: 5,
        maxRetryWaitMs: 60_000,
        maxRps: 0,
        logger: createSilentLogger(),
        sleep: async () => undefined,
        body: { maxBytes: MiB, maxDecodedBytes: MiB },
      });

    it('fails a body over its limit at once, in one line naming the URL without the key, the limit and the setting', async () => {
      const err = (await client().get('/endless', { EventId: '7' }).catch((e: unknown) => e)) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect({ kind: err.kind, retryable: err.retryable, attempts: err.attempts }).toEqual({ kind: 'too-large', retryable: false, attempts: 1 });
      expect(err.message).toBe(`GET ${served.base()}/endless?EventId=7 failed: the body is more than 1 MiB as received; the limit is 1 MiB (PITWALL_MAX_BODY_BYTES) (1 attempt)`);
    });

    it('gives a body still arriving at the deadline one more attempt, not five, as its own kind', async () => {
      const err = (await client(300).get('/trickle', {}).catch((e: unknown) => e)) as ApiError;
      expect({ kind: err.kind, attempts: err.attempts }).toEqual({ kind: 'slow-body', attempts: 2 });
      expect(err.message).toMatch(/the body was still arriving after 300 ms, slower than 256 KiB\/s \(PITWALL_REQUEST_TIMEOUT_MS/);
    });

    it('counts only the attempts whose body trickled: other failures between them do not use up its one retry', async () => {
      mixed = 0;
      const err = (await client(300).get('/mixed', {}).catch((e: unknown) => e)) as ApiError;
      expect({ kind: err.kind, attempts: err.attempts }).toEqual({ kind: 'slow-body', attempts: 4 });
      mixed = 2; // from the second 503 on: 503, trickle, then the answer
      expect(await client(300).get('/mixed', {})).toMatchObject({ kind: 'ok', attempts: 3 });
    });

    it('does not follow a redirect, and says where it pointed (the origin alone) and which setting to change', async () => {
      const err = (await client().get('/moved', {}).catch((e: unknown) => e)) as ApiError;
      expect({ kind: err.kind, status: err.status, attempts: err.attempts }).toEqual({ kind: 'http', status: 302, attempts: 1 });
      expect(err.message).toContain('HTTP 302, a redirect to https://elsewhere.example:8443');
      expect(err.message).toContain('set MRP_API_BASE_URL');
      expect(err.message).not.toMatch(/key=|abc|ScheduleYear/);
    });
  });
});
