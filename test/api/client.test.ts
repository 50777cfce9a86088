import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { createApiClient, type ApiClientOptions } from '../../src/api/client.js';
import { ApiError, PayloadError, UpstreamDownError } from '../../src/api/errors.js';
import type { RetryEvent } from '../../src/api/types.js';
import { createSilentLogger } from '../../src/log.js';

/**
 * A real HTTP server on 127.0.0.1 that answers request n with step n (the last step repeats),
 * so each test scripts exactly the faults it is about.
 */
type Step = (req: IncomingMessage, res: ServerResponse) => void;

const json =
  (body: unknown, status = 200, headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
const reset: Step = (req) => req.socket.destroy();
const stall: Step = () => undefined;
const OK = { RequestValid: 1, ItemsReturned: 1, Schedules: [{ ScheduleId: 5508 }] };

const servers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((close) => close()));
});

async function scripted(...steps: Step[]): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const step = steps[Math.min(seen.length, steps.length) - 1];
    step?.(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** A client whose sleeps are recorded instead of waited, with backoff random fixed at 0.5. */
function clientFor(url: string, overrides: Partial<ApiClientOptions> = {}) {
  const delays: number[] = [];
  const retries: RetryEvent[] = [];
  const client = createApiClient({
    baseUrl: url,
    apiKey: 'test-key',
    timeoutMs: 2000,
    maxAttempts: 5,
    maxRetryWaitMs: 60_000,
    maxRps: 0,
    logger: createSilentLogger(),
    random: () => 0.5,
    sleep: async (ms) => void delays.push(ms),
    observer: { onRetry: (e) => void retries.push(e) },
    ...overrides,
  });
  return { client, delays, retries };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (err: unknown) => err,
  );
}

describe('api client: answers', () => {
  it('returns the envelope with attempts and bytes, sending canonical params and the key', async () => {
    const { url, seen } = await scripted(json(OK));
    const { client } = clientFor(url);
    const result = await client.get('/v2/schedules/', { ScheduleYear: 2016, Extra: undefined });
    expect(result).toMatchObject({ kind: 'ok', body: OK, repaired: false, attempts: 1 });
    expect(result.kind === 'ok' && result.bytes).toBe(JSON.stringify(OK).length);
    expect(seen).toEqual(['/v2/schedules/?ScheduleYear=2016&key=test-key']);
  });

  it('repairs a double-comma body and reports it', async () => {
    const { url } = await scripted(json('{"RequestValid":1,,"Points":[{"Pos":1},,{"Pos":2}]}'));
    const result = await clientFor(url).client.get('/v2/points/', { ScheduleId: 1 });
    expect(result).toMatchObject({ kind: 'ok', repaired: true, body: { Points: [{ Pos: 1 }, { Pos: 2 }] } });
  });

  it('returns RequestValid 0 as kind invalid without retrying', async () => {
    const { url, seen } = await scripted(json({ RequestValid: 0 }), json(OK));
    const { client, delays } = clientFor(url);
    const result = await client.get('/v2/points/', {});
    expect(result).toEqual({ kind: 'invalid', body: { RequestValid: 0 }, reason: 'RequestValid is 0', attempts: 1 });
    expect(seen).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('throws PayloadError, without retrying, for JSON that is not an envelope', async () => {
    const { url, seen } = await scripted(json([1, 2]), json(OK));
    const err = await rejection(clientFor(url).client.get('/v2/points/', {}));
    expect(err).toBeInstanceOf(PayloadError);
    expect((err as PayloadError).snippet).toBe('[1,2]');
    expect(seen).toHaveLength(1);
  });
});

describe('api client: retries', () => {
  it('retries a 503 after the backoff delay and reports the retry', async () => {
    const { url, seen } = await scripted(json({}, 503), json(OK));
    const { client, delays, retries } = clientFor(url);
    const result = await client.get('/v2/schedules/', { ScheduleYear: 2016 });
    expect(result).toMatchObject({ kind: 'ok', attempts: 2 });
    expect(seen).toHaveLength(2);
    expect(delays).toEqual([250]);
    expect(retries).toEqual([
      { path: '/v2/schedules/', params: 'ScheduleYear=2016', reason: 'http 503', delayMs: 250, attempt: 1 },
    ]);
  });

  it('honours Retry-After on a 429 instead of its own backoff', async () => {
    const { url } = await scripted(json({}, 429, { 'retry-after': '3' }), json(OK));
    const { client, delays } = clientFor(url);
    expect(await client.get('/v2/schedules/', {})).toMatchObject({ kind: 'ok', attempts: 2 });
    expect(delays).toEqual([3000]);
  });

  it('gives up at once when Retry-After asks for more than the wait budget left', async () => {
    const { url, seen } = await scripted(json({}, 429, { 'retry-after': '120' }), json(OK));
    const { client, delays } = clientFor(url, { maxRetryWaitMs: 60_000 });
    const err = await rejection(client.get('/v2/schedules/', {}));
    expect(err).toMatchObject({ name: 'ApiError', kind: 'http', status: 429, retryable: true, attempts: 1 });
    expect(seen).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('retries a connection reset, a stalled response and a truncated body', async () => {
    const truncated = json('{"RequestValid":1,"Schedules":[{"Sched');
    const { url, seen } = await scripted(reset, stall, truncated, json(OK));
    // The stalled attempt ends at the client's timeout (clientFor's 2 s): the others must answer
    // within it, which even a busy machine's loopback does with room to spare.
    const { client, retries } = clientFor(url);
    expect(await client.get('/v2/schedules/', {})).toMatchObject({ kind: 'ok', attempts: 4 });
    expect(retries.map((r) => r.reason)).toEqual(['network', 'timeout', 'body']);
    expect(seen).toHaveLength(4);
  });

  it('stops after maxAttempts with the last error and its attempt count', async () => {
    const { url, seen } = await scripted(json({}, 500));
    const { client, delays } = clientFor(url, { maxAttempts: 3 });
    const err = await rejection(client.get('/v2/schedules/', {}));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 500, retryable: true, attempts: 3 });
    expect(seen).toHaveLength(3);
    expect(delays).toEqual([250, 500]);
  });

  it('clamps backoff to the total wait budget and stops once it is spent', async () => {
    const { url, seen } = await scripted(json({}, 502));
    const { client, delays } = clientFor(url, { maxAttempts: 10, maxRetryWaitMs: 1000, random: () => 0.9 });
    await rejection(client.get('/v2/schedules/', {}));
    // Ceilings 500, 1000, 2000 at random 0.9: 450, then 900 clamped to the 550 left.
    expect(delays).toEqual([450, 550]);
    expect(seen).toHaveLength(3);
  });

  it('does not retry other 4xx statuses', async () => {
    const { url, seen } = await scripted(json({}, 404), json(OK));
    const err = await rejection(clientFor(url).client.get('/v2/nope/', {}));
    expect(err).toMatchObject({ kind: 'http', status: 404, retryable: false, attempts: 1 });
    expect(seen).toHaveLength(1);
  });

  it('acquires the rate limiter for every attempt, retries included', async () => {
    const { url } = await scripted(json({}, 503), json(OK));
    const { client, delays } = clientFor(url, { maxRps: 10, now: () => 0 });
    await client.get('/v2/schedules/', {});
    // The retry's backoff (250), then the limiter holding attempt 2 for its 100 ms slot.
    expect(delays).toEqual([250, 100]);
  });
});

describe('api client: abort and upstream down', () => {
  it('rethrows the caller abort at once, even mid-request, without retrying', async () => {
    const { url, seen } = await scripted(stall, json(OK));
    const timeoutMs = 30_000;
    const { client } = clientFor(url, { timeoutMs });
    const controller = new AbortController();
    const started = performance.now();
    const err = rejection(client.get('/v2/schedules/', {}, { signal: controller.signal }));
    // Aborted once the server holds the request: mid-request.
    await vi.waitFor(() => expect(seen).toHaveLength(1), { interval: 5 });
    controller.abort();
    expect(((await err) as Error).name).toBe('AbortError');
    // Not at the attempt's own timeout, which would have ended it otherwise.
    expect(performance.now() - started).toBeLessThan(timeoutMs);
    expect(seen).toHaveLength(1);
  });

  it('rethrows an abort that lands during the retry wait', async () => {
    const { url, seen } = await scripted(json({}, 503), json(OK));
    const controller = new AbortController();
    const sleep = async (_ms: number, signal?: AbortSignal) => {
      controller.abort();
      signal?.throwIfAborted();
    };
    const { client } = clientFor(url, { sleep });
    const err = await rejection(client.get('/v2/schedules/', {}, { signal: controller.signal }));
    expect((err as Error).name).toBe('AbortError');
    expect(seen).toHaveLength(1);
  });

  it('after N failed requests in a row refuses further calls without a request', async () => {
    const { url, seen } = await scripted(json({}, 503));
    const { client } = clientFor(url, { maxAttempts: 2, consecutiveFailureLimit: 2 });
    await expect(client.get('/v2/a/', {})).rejects.toBeInstanceOf(ApiError);
    await expect(client.get('/v2/b/', {})).rejects.toBeInstanceOf(ApiError);
    const err = await rejection(client.get('/v2/c/', {}));
    expect(err).toBeInstanceOf(UpstreamDownError);
    expect((err as UpstreamDownError).cause).toBeInstanceOf(ApiError);
    expect(seen).toHaveLength(4);
  });

  it('resets the failure count on a success', async () => {
    const { url } = await scripted(json({}, 503), json(OK), json({}, 503));
    const { client } = clientFor(url, { maxAttempts: 1, consecutiveFailureLimit: 2 });
    await expect(client.get('/v2/a/', {})).rejects.toBeInstanceOf(ApiError);
    await expect(client.get('/v2/a/', {})).resolves.toMatchObject({ kind: 'ok' });
    await expect(client.get('/v2/a/', {})).rejects.toBeInstanceOf(ApiError);
    expect(client.consecutiveFailures).toBe(1);
    await expect(client.get('/v2/a/', {})).rejects.toBeInstanceOf(ApiError);
  });
});

describe('api client: known bodies and request slots', () => {
  it('ends as kind known, unparsed, when the caller recognises the body', async () => {
    // Not JSON at all: had the client parsed it, the request would have failed.
    const { url, seen } = await scripted(json('same text as before'));
    const texts: string[] = [];
    const known = (body: Uint8Array) => (texts.push(Buffer.from(body).toString()), true);
    const result = await clientFor(url).client.get('/v2/schedules/', {}, { known });
    expect(result).toEqual({ kind: 'known', attempts: 1, bytes: 'same text as before'.length, maskedValues: 0 });
    expect(texts).toEqual(['same text as before']);
    expect(seen).toHaveLength(1);
  });

  it('parses as usual when the caller does not recognise the body', async () => {
    const { url } = await scripted(json(OK));
    const result = await clientFor(url).client.get('/v2/schedules/', {}, { known: () => false });
    expect(result).toMatchObject({ kind: 'ok', body: OK });
  });

  it('holds a slot for each attempt while it is on the network, and parses after giving it back', async () => {
    const { url } = await scripted(json({}, 503), json(OK));
    const events: string[] = [];
    const { client } = clientFor(url, {
      slot: async (send) => {
        events.push('slot taken');
        try {
          return await send();
        } finally {
          events.push('slot given back');
        }
      },
    });
    const result = await client.get('/v2/schedules/', {}, { known: () => (events.push('body read'), false) });
    expect(result).toMatchObject({ kind: 'ok', body: OK, attempts: 2 });
    // The 503 and the 200 each took and gave back a slot; the body was looked at outside it.
    expect(events).toEqual(['slot taken', 'slot given back', 'slot taken', 'slot given back', 'body read']);
  });
});
