import { connect } from 'node:net';

import { describe, expect, it } from 'vitest';

import { apiUrl, startTestSimulator } from './helpers.js';

/** The raw bytes a server sends for one GET, up to the end of the connection. */
async function rawGet(url: string): Promise<{ head: string; body: Buffer }> {
  const { hostname, port, pathname, search } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.write(`GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const all = Buffer.concat(chunks);
  const split = all.indexOf('\r\n\r\n');
  return { head: all.subarray(0, split).toString(), body: all.subarray(split + 4) };
}

describe('connection faults', () => {
  it('reset: the socket is destroyed without a response', async () => {
    const sim = await startTestSimulator({ faults: { rate: 1, kinds: ['reset'] } });
    const error = await fetch(apiUrl(sim, '/v2/schedules/')).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(TypeError);
    expect(String((error as Error).cause)).toMatch(/ECONNRESET|other side closed|socket/i);
    expect(sim.requests().faults.reset).toBe(1);
  });

  it('slow: headers arrive, the body stalls, a client timeout aborts the read', async () => {
    const sim = await startTestSimulator({ faults: { rate: 1, kinds: ['slow'], slowMs: 30_000 } });
    const res = await fetch(apiUrl(sim, '/v2/schedules/'), { signal: AbortSignal.timeout(200) });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('slow: the body does arrive once the stall is over', async () => {
    const sim = await startTestSimulator({ faults: { rate: 1, kinds: ['slow'], slowMs: 50 } });
    const body = (await (await fetch(apiUrl(sim, '/v2/schedules/'))).json()) as { RequestValid: number };
    expect(body.RequestValid).toBe(1);
  });

  it('truncated: the full Content-Length, part of the body, then the connection ends', async () => {
    const sim = await startTestSimulator({ faults: { rate: 1, kinds: ['truncated'] } });
    const { head, body } = await rawGet(apiUrl(sim, '/v2/schedules/'));
    const length = Number(/content-length: (\d+)/i.exec(head)?.[1]);
    expect(body.length).toBeGreaterThan(0);
    expect(body.length).toBeLessThan(length);
    expect(() => JSON.parse(body.toString())).toThrow(SyntaxError);
    await expect(fetch(apiUrl(sim, '/v2/schedules/')).then((r) => r.text())).rejects.toThrow();
  });
});
