import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { MAX_BODY_DEPTH, parseBody } from '../../src/api/body.js';
import { createApiClient } from '../../src/api/client.js';
import { ApiError, PayloadError, SNIPPET_MAX_BYTES } from '../../src/api/errors.js';
import { createSilentLogger } from '../../src/log.js';
import { useSimulator } from '../helpers/fixture.js';

/**
 * Garbage bodies. parseBody and the client either give a value or fail with the upstream
 * layer's own errors (PayloadError, ApiError of kind 'body'), with snippets that stay bounded,
 * whatever arrives: random text, cut-off bodies, JSON that is not an envelope, absurd nesting.
 */

const RUNS = process.env.PITWALL_SOAK ? 2000 : 150;

const sim = useSimulator({ scale: 'tiny', seed: 3, quirks: { doubleComma: 1 } });
let realBody: string;
let server: Server;
let serverUrl: string;
let nextBody = '';
beforeAll(async () => {
  const years = (await (await fetch(`${sim.url}/v2/schedules/years/?key=${sim.key}`)).json()) as { Years: Array<{ ScheduleYear: number }> };
  const year = years.Years[0]!.ScheduleYear;
  realBody = await (await fetch(`${sim.url}/v2/schedules/?ScheduleYear=${year}&key=${sim.key}`)).text();
  expect(JSON.parse(realBody).Schedules.length).toBeGreaterThan(0);
  // Answers every request with whatever the test set last: a complete HTTP response, bad content.
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(nextBody));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** Text an upstream might send: noise, a real body cut anywhere, or one spoiled in a few places. */
const bodyText = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.nat().map((n) => realBody.slice(0, n % realBody.length)),
    fc.tuple(fc.nat(), fc.constantFrom(',,', '}', '"', '\u0000', '\\', ']', 'NaN')).map(([n, junk]) => {
      const at = n % realBody.length;
      return realBody.slice(0, at) + junk + realBody.slice(at);
    }),
    fc.constantFrom('', ' ', 'null', '[]', '{}', '<html>502</html>', '\ufeff', 'callback(', '"RequestValid"'),
  );

describe('parseBody', () => {
  it('returns a value or throws PayloadError with a snippet of at most 2 KiB, for any text', () => {
    fc.assert(
      fc.property(fc.oneof(bodyText(), fc.string({ unit: 'binary', minLength: 3000, maxLength: 6000 })), (text) => {
        try {
          parseBody(text);
        } catch (err) {
          expect(err).toBeInstanceOf(PayloadError);
          expect(bytes((err as PayloadError).snippet)).toBeLessThanOrEqual(SNIPPET_MAX_BYTES);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('never takes a body cut short for a whole one', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: realBody.length - 1 }), (cut) => {
        expect(() => parseBody(realBody.slice(0, cut))).toThrow(PayloadError);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('the client, given a garbage body over real HTTP', () => {
  const client = () =>
    createApiClient({
      baseUrl: serverUrl,
      apiKey: 'k',
      timeoutMs: 2000,
      maxAttempts: 2,
      maxRetryWaitMs: 1000,
      maxRps: 0,
      logger: createSilentLogger(),
      sleep: async () => undefined,
      consecutiveFailureLimit: 1_000_000,
    });

  it('answers or fails with its own error kinds, never anything else', async () => {
    const api = client();
    await fc.assert(
      fc.asyncProperty(bodyText(), async (text) => {
        nextBody = text;
        try {
          const r = await api.get('/v2/schedules/', { ScheduleYear: 2024 });
          expect(['ok', 'invalid']).toContain(r.kind);
        } catch (err) {
          const known = err instanceof PayloadError || (err instanceof ApiError && err.kind === 'body');
          expect(known, String(err)).toBe(true);
          const snippet = err instanceof PayloadError ? err.snippet : (err as ApiError & { cause: PayloadError }).cause.snippet;
          expect(bytes(snippet)).toBeLessThanOrEqual(SNIPPET_MAX_BYTES);
        }
      }),
      { numRuns: Math.min(RUNS, 200) },
    );
  });

  it('refuses JSON nested deeper than it can store, at once and without a retry', async () => {
    for (const depth of [MAX_BODY_DEPTH, 10_000, 200_000]) {
      nextBody = `{"RequestValid":1,"Schedules":[${'['.repeat(depth)}${']'.repeat(depth)}]}`;
      const err = await client()
        .get('/v2/schedules/', {})
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PayloadError);
      expect((err as PayloadError).message).toMatch(/nested deeper than/);
    }
    nextBody = `{"RequestValid":1,"Schedules":[${'['.repeat(MAX_BODY_DEPTH - 3)}${']'.repeat(MAX_BODY_DEPTH - 3)}]}`;
    expect((await client().get('/v2/schedules/', {})).kind).toBe('ok');
  });
});
