import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

import type pg from 'pg';

import type { WarehouseTableName } from '../../src/db/schema/mrp.js';
import { DIMENSION_TABLES, endpoint, type EndpointName } from '../../src/sync/endpoints.js';

import { readLiveRows, type Truth } from './warehouse.js';

/**
 * A hostile upstream for the tests: a real HTTP server in front of the simulator that answers
 * chosen scopes (a path and its EventId) the ways a broken or malicious upstream, or something
 * on the path to it, can, the same way on every request, and passes every other request through
 * untouched. Nothing of pitwall is replaced: it meets these bodies exactly as it would meet them
 * from the real API.
 */
export type Hostility =
  /** 1 MB of gzip that inflates to 1 GiB (64 members of 16 MiB of zeros). */
  | 'gzip-bomb'
  /** The real body with 150 MB of whitespace on each side, chunked (no Content-Length). */
  | 'whitespace'
  /** The headers, then a byte every `trickleMs`, forever. */
  | 'trickle'
  /** JSON arrays nested 100,000 deep. */
  | 'deep'
  /** A 302 to another origin (never followed: pitwall would carry the key there). */
  | 'redirect'
  /** Says gzip, sends something else. */
  | 'broken-gzip'
  /** An HTML page with a 200. */
  | 'not-json'
  /** JSON, but not a v2 envelope. */
  | 'not-envelope'
  /** The real envelope without the endpoint's list. */
  | 'no-list'
  /** Takes the request and never sends a status line. */
  | 'silent'
  /** The real body's Content-Length, then half the body, then the connection closes. */
  | 'half-body'
  /** The real body as UTF-16LE with a byte order mark, `charset=utf-16`. */
  | 'utf-16'
  /** The real body, with a charset no decoder knows. */
  | 'klingon';

export interface HostileUpstream {
  url: string;
  /** Requests each hostile scope got (`path?EventId=n`). */
  hits: Map<string, number>;
  /** Makes every scope honest again (the upstream mended), or hostile again. */
  setHostile(on: boolean): void;
  /** Answers every request this way (an upstream down, say), or, with null, each as `scopes` says. */
  setAll(kind: Hostility | null): void;
  /**
   * Holds every request from now until the returned function is called, then answers each as it
   * would have: a test's event, where a slow upstream would only make a run likely to last.
   */
  hold(): () => void;
  close(): Promise<void>;
}

const MiB = 1024 * 1024;
let bomb: Buffer | undefined;
/**
 * 1 MB of gzip that inflates to 1 GiB, built on first use and kept: 64 copies of one member of
 * 16 MiB of zeros (gzip reads concatenated members as one stream).
 */
export function gzipBomb(): Buffer {
  bomb ??= Buffer.concat(Array<Buffer>(64).fill(gzipSync(Buffer.alloc(16 * MiB), { level: 9 })));
  return bomb;
}

const scopeOf = (url: URL) => `${url.pathname}?EventId=${url.searchParams.get('EventId') ?? ''}`;

function forward(target: URL, req: IncomingMessage): Promise<IncomingMessage> {
  const headers = { ...req.headers, host: target.host };
  delete headers['accept-encoding'];
  return new Promise((resolve, reject) => {
    const out = request(target, { method: req.method, headers }, resolve);
    out.on('error', reject);
    out.end();
  });
}

async function readAll(res: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Writes `total` bytes of `fill` (reusing one buffer) as fast as the client reads, stopping when it goes. */
async function writeFill(res: ServerResponse, total: number): Promise<void> {
  const chunk = Buffer.alloc(MiB, 0x20);
  for (let sent = 0; sent < total && !res.destroyed; sent += chunk.length) {
    if (res.write(chunk)) continue;
    await new Promise<void>((resolve) => {
      const done = () => (res.off('drain', done), res.off('close', done), resolve());
      res.on('drain', done).on('close', done);
    });
  }
}

async function hostile(kind: Hostility, res: ServerResponse, upstream: () => Promise<Buffer>, trickleMs: number, target: URL): Promise<void> {
  switch (kind) {
    case 'gzip-bomb':
      return void res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipBomb());
    case 'whitespace': {
      const body = await upstream();
      res.writeHead(200, { 'content-type': 'application/json' });
      await writeFill(res, 150 * MiB);
      if (!res.destroyed) res.write(body);
      await writeFill(res, 150 * MiB);
      return void res.end();
    }
    case 'trickle': {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const timer = setInterval(() => res.write(' '), trickleMs);
      return void res.on('close', () => clearInterval(timer));
    }
    case 'deep':
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('['.repeat(100_000) + ']'.repeat(100_000));
    case 'redirect':
      return void res.writeHead(302, { location: `https://mirror.invalid${target.pathname}${target.search}` }).end();
    case 'broken-gzip':
      return void res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end('this is not gzip');
    case 'not-json':
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Service temporarily rerouted</body></html>');
    case 'not-envelope':
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('[1, 2, 3]');
    case 'silent':
      return;
    case 'half-body': {
      const body = await upstream();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
      return void res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
    }
    case 'utf-16': {
      const body = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from((await upstream()).toString('utf8'), 'utf16le')]);
      return void res.writeHead(200, { 'content-type': 'application/json; charset=utf-16' }).end(body);
    }
    case 'klingon':
      return void res.writeHead(200, { 'content-type': 'application/json; charset=x-klingon' }).end(await upstream());
    case 'no-list': {
      const { RequestValid, ItemsReturned } = JSON.parse((await upstream()).toString('utf8')) as Record<string, unknown>;
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ RequestValid, ItemsReturned }));
    }
  }
}

/**
 * Starts the hostile upstream on 127.0.0.1 in front of `simUrl`; `scopes` maps `path?EventId=n`
 * to what that scope gets.
 */
export async function startHostileUpstream(simUrl: string, scopes: ReadonlyMap<string, Hostility>, { trickleMs = 200 } = {}): Promise<HostileUpstream> {
  const base = new URL(simUrl);
  const hits = new Map<string, number>();
  let on = true;
  let all: Hostility | null = null;
  let held: Promise<void> | undefined;
  const server = createServer((req, res) => {
    const target = new URL(req.url ?? '/', base);
    const kind = all ?? (on ? scopes.get(scopeOf(target)) : undefined);
    void (async () => {
      await held;
      if (kind) {
        hits.set(scopeOf(target), (hits.get(scopeOf(target)) ?? 0) + 1);
        return hostile(kind, res, async () => readAll(await forward(target, req)), trickleMs, target);
      }
      const upstream = await forward(target, req);
      res.writeHead(upstream.statusCode ?? 502, upstream.headers);
      upstream.pipe(res);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`hostile upstream: ${String(err)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    setHostile: (value) => void (on = value),
    setAll: (kind) => void (all = kind),
    hold: () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      held = gate;
      return () => {
        // Only its own hold: a later hold() stays until its own release.
        if (held === gate) held = undefined;
        release();
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A scope the hostile upstream (or a test) makes fail: its endpoint and event. */
export interface Victim {
  ep: EndpointName;
  eventId: number;
}

/**
 * Per table, rows of one source that differ from the truth, leaving out the rows only the victims'
 * scopes hold: every other scope's rows must equal the truth value by value. A dimension row
 * (a driver) that only a victim's body lists is missing; every one that loaded must be true.
 */
export async function diffOutsideVictims(pool: pg.Pool, truth: Truth, victims: readonly Victim[]): Promise<Record<string, unknown>> {
  const diffs: Record<string, unknown> = {};
  for (const [table, want] of Object.entries(truth) as Array<[WarehouseTableName, Array<Record<string, unknown>>]>) {
    const got = await readLiveRows(pool, table);
    const lost = new Set(victims.filter((v) => endpoint(v.ep).tables.includes(table)).map((v) => v.eventId));
    const keep = (r: Record<string, unknown>) => !lost.has(Number(r.event_id));
    if (DIMENSION_TABLES.has(table)) {
      const truthRows = new Set(want.map((r) => JSON.stringify(r)));
      const wrong = got.filter((r) => !truthRows.has(JSON.stringify(r)));
      if (wrong.length) diffs[table] = wrong.slice(0, 3);
    } else if (JSON.stringify(got.filter(keep)) !== JSON.stringify(want.filter(keep))) {
      diffs[table] = { warehouse: got.filter(keep).length, truth: want.filter(keep).length };
    }
  }
  return diffs;
}
