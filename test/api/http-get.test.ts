import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';

import { describe, expect, it } from 'vitest';

import { httpGet } from '../../src/api/http-get.js';
import { useHttpServer } from '../helpers/http-server.js';

const BODY = JSON.stringify({ RequestValid: 1, Rows: Array.from({ length: 2000 }, (_, i) => ({ Id: i, Name: `Driver ${i}` })) });

/** A real server on 127.0.0.1 whose paths answer the ways an upstream can. */
function server(ports: number[]): http.Server {
  return http.createServer((req, res) => {
    ports.push(req.socket.remotePort ?? 0);
    const path = req.url?.split('?')[0];
    if (path === '/gzip') return void res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(BODY));
    if (path === '/deflate') return void res.writeHead(200, { 'content-encoding': 'deflate' }).end(deflateSync(BODY));
    if (path === '/deflate-raw') return void res.writeHead(200, { 'content-encoding': 'deflate' }).end(deflateRawSync(BODY));
    if (path === '/br') return void res.writeHead(200, { 'content-encoding': 'br' }).end('x');
    if (path === '/cut') {
      // Promises the whole body, sends a third of it, and drops the connection.
      res.writeHead(200, { 'content-length': String(BODY.length) });
      res.write(BODY.slice(0, BODY.length / 3));
      return void setTimeout(() => res.socket?.destroy(), 20);
    }
    if (path === '/slow') {
      res.writeHead(200, { 'content-length': String(BODY.length) });
      return void res.write(BODY.slice(0, 100)); // the rest never comes
    }
    if (path === '/late') return void setTimeout(() => res.writeHead(200).end(BODY), 5_000);
    if (path === '/503') return void res.writeHead(503, { 'retry-after': '7' }).end('<html>busy</html>');
    res.writeHead(200, { 'content-type': 'application/json' }).end(BODY);
  });
}

const text = async (p: Promise<ArrayBuffer>) => Buffer.from(await p).toString('utf8');

describe('httpGet', () => {
  /** The client port of every request served: one per connection. */
  const ports: number[] = [];
  const served = useHttpServer(server(ports));

  const get = (path: string, signal = AbortSignal.timeout(5_000)) => httpGet(`${served.base()}${path}`, { signal, headers: { accept: 'application/json' } });

  it('reads a body whole, and decodes one the server compressed (gzip, zlib deflate, raw deflate)', async () => {
    for (const path of ['/plain', '/gzip', '/deflate', '/deflate-raw']) {
      const res = await get(path);
      expect({ path, status: res.status, ok: res.ok }).toEqual({ path, status: 200, ok: true });
      expect(await text(res.arrayBuffer())).toBe(BODY);
    }
  });

  it('reuses one kept-alive connection for requests one after another', async () => {
    ports.length = 0;
    for (let i = 0; i < 5; i++) await (await get('/plain')).arrayBuffer();
    expect(ports).toHaveLength(5);
    expect(new Set(ports).size).toBe(1);
  });

  it('waits for an answer slower than the idle timeout of its kept-alive connections', async () => {
    // No deadline of its own: a request dropped at the idle timeout fails, however fast the machine.
    const res = await get('/late', new AbortController().signal);
    expect(await text(res.arrayBuffer())).toBe(BODY);
  });

  it('gives the status and headers of an error page, whose connection then serves the next request', async () => {
    ports.length = 0;
    const res = await get('/503');
    expect([res.status, res.ok, res.headers.get('Retry-After'), res.headers.get('x-none')]).toEqual([503, false, '7', null]);
    expect(await text((await get('/plain')).arrayBuffer())).toBe(BODY);
    expect(ports).toHaveLength(2);
    expect(ports[1]).toBe(ports[0]);
  });

  it('rejects a body the connection dropped half-way as short, naming bytes received of bytes announced (the client retries it)', async () => {
    const res = await get('/cut');
    await expect(res.arrayBuffer()).rejects.toMatchObject({
      code: 'body-short',
      received: BODY.length / 3,
      declared: BODY.length,
      message: `the body was cut short: the connection closed after ${BODY.length / 3} of the ${BODY.length} bytes its Content-Length announced`,
    });
  });

  it('stops reading when its signal fires mid-body', async () => {
    // The rest of the body never comes: only the signal can end the read.
    const controller = new AbortController();
    const res = await get('/slow', controller.signal);
    const body = res.arrayBuffer();
    controller.abort();
    await expect(body).rejects.toThrow();
  });

  it('refuses an encoding it did not ask for, and a scheme other than http and https', async () => {
    await expect((await get('/br')).arrayBuffer()).rejects.toThrow(/Content-Encoding "br"/);
    await expect(httpGet('ftp://127.0.0.1/x', { signal: AbortSignal.timeout(1_000), headers: {} })).rejects.toThrow(/not ftp:/);
  });

  it('fails with the socket error when nothing listens (classified as refused by the client)', async () => {
    const closed = http.createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(httpGet(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2_000), headers: {} })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
