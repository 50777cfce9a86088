import http from 'node:http';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { BodyPace, SLOW_BODY_BYTES_PER_S } from '../../src/api/body-pace.js';
import { createApiClient } from '../../src/api/client.js';
import type { ApiError } from '../../src/api/errors.js';
import { httpGet, type Transport } from '../../src/api/http-get.js';
import { createSilentLogger } from '../../src/log.js';
import { useHttpServer } from '../helpers/http-server.js';

/**
 * A body still arriving at its deadline is judged by its pace, not by the clock alone: a large
 * body a busy machine reads slowly is `too-large` as on a quiet one, a trickle is `slow-body`
 * (src/api/body-pace.ts). The deadline and the clock are the test's: nothing waits on the wall.
 */
const MiB = 1024 * 1024;

describe('BodyPace', () => {
  const at = (start = 0) => {
    let now = start;
    return { pace: new BodyPace(() => now), set: (ms: number) => void (now = ms) };
  };

  it('ends an attempt with no headers, or a body under the floor; gives one at or over it until its pace would fall under', () => {
    expect(at().pace.graceMs()).toBe(0);
    const trickle = at();
    trickle.pace.headersCame();
    trickle.pace.receivedBytes(100);
    trickle.set(1_000);
    expect(trickle.pace.graceMs()).toBe(0);
    const large = at();
    large.pace.headersCame();
    large.pace.receivedBytes(MiB);
    large.set(1_000);
    expect(large.pace.graceMs()).toBe((MiB / SLOW_BODY_BYTES_PER_S) * 1000 - 1_000);
  });

  it('does not judge a body its reader paused, nor count that time, nor one received whole', () => {
    const { pace, set } = at();
    pace.headersCame();
    pace.receivedBytes(SLOW_BODY_BYTES_PER_S);
    pace.readerPaused(true);
    set(5_000);
    expect(pace.graceMs()).toBeGreaterThan(0);
    pace.readerPaused(false);
    set(5_500);
    // 5 s paused are the reader's: 500 ms of arriving at four times the floor's pace leaves 500 ms.
    expect(pace.graceMs()).toBe(500);
    pace.receivedBytes(0, true);
    set(60_000);
    expect(pace.graceMs()).toBeGreaterThan(0);
  });
});

/** Lets each held response go on; one per request to /held. */
let releaseHeld: Array<() => void> = [];

function server(): http.Server {
  return http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    if (req.url?.startsWith('/held')) {
      // 1 MiB at once, then whitespace without end once the test lets it go: a large body whose
      // reader fell behind, as on a busy machine.
      res.write(Buffer.alloc(MiB, 0x20));
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      releaseHeld.push(pump);
      return;
    }
    // A trickle that has sent its first byte.
    res.write('{');
  });
}

describe('a body still arriving at its deadline', () => {
  const served = useHttpServer(server());
  afterEach(() => {
    vi.useRealTimers();
    releaseHeld = [];
  });

  /** A client on the test's clock, whose transport says when `bytes` of a body have come. */
  function clientReceiving(bytes: number) {
    let clock = 0;
    let received = 0;
    let arrived!: () => void;
    const enough = new Promise<void>((r) => (arrived = r));
    const transport: Transport = (url, init) =>
      httpGet(url, {
        ...init,
        limits: {
          ...init.limits!,
          onReceived: (n, ended) => {
            init.limits!.onReceived?.(n, ended);
            if ((received += n) >= bytes) arrived();
          },
        },
      });
    const client = createApiClient({
      baseUrl: served.base(),
      apiKey: 'test-key',
      timeoutMs: 1_000,
      maxAttempts: 1,
      maxRetryWaitMs: 0,
      maxRps: 0,
      logger: createSilentLogger(),
      fetch: transport,
      now: () => clock,
      body: { maxBytes: 8 * MiB, maxDecodedBytes: 8 * MiB },
    });
    /** The deadline passes, by the client's clock and its timer. */
    const deadlinePasses = () => {
      clock += 1_000;
      vi.advanceTimersByTime(1_000);
    };
    return { client, enough, deadlinePasses };
  }

  it('is too-large when it came at a large body’s pace, however late its reader finishes it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { client, enough, deadlinePasses } = clientReceiving(MiB);
    const failed = client.get('/held', {}).catch((e: unknown) => e as ApiError);
    await enough;
    deadlinePasses();
    releaseHeld.forEach((go) => go());
    expect(await failed).toMatchObject({ kind: 'too-large', attempts: 1 });
  });

  it('is slow-body when it came at a trickle', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { client, enough, deadlinePasses } = clientReceiving(1);
    const failed = client.get('/trickle', {}).catch((e: unknown) => e as ApiError);
    await enough;
    deadlinePasses();
    expect(await failed).toMatchObject({ kind: 'slow-body', attempts: 1 });
  });
});
