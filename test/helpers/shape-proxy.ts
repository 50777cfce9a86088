import { createServer, request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Changes the shape of what the upstream sends, at the HTTP level: a real server in front of the
 * simulator, so pitwall meets a changed response exactly as it would meet a changed upstream,
 * with nothing of pitwall replaced. `transform` gets each JSON body (parsed) with the request's
 * path and returns the body to send instead; returning `undefined` sends the original text
 * unchanged. A body that is not JSON (an error page, or the points quirk's `,,`) passes through
 * untouched, as do the status and headers (content length recomputed).
 */
export type ShapeTransform = (path: string, body: any, url: URL) => any; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface ShapeProxy {
  /** The base URL to give pitwall in place of the simulator's. */
  url: string;
  close: () => Promise<void>;
}

/** Headers that describe the body as sent by the simulator, not as the proxy sends it. */
const BODY_HEADERS = new Set(['content-length', 'content-encoding', 'transfer-encoding', 'connection']);

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function forward(target: URL, req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  const headers = { ...req.headers, host: target.host };
  // Ask for an uncompressed body, so it can be read and rewritten.
  delete headers['accept-encoding'];
  return new Promise((resolve, reject) => {
    const out = request(target, { method: req.method, headers }, (res) => {
      readAll(res).then((b) => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: b }), reject);
    });
    out.on('error', reject);
    out.end(body);
  });
}

/** Rewrites the JSON text the transform's body was serialised to: for what JSON.stringify never writes (`\/`, `\u` escapes). */
export type TextTransform = (path: string, json: string) => string;

/** The body to send instead of `body`, or null to send it as it came. */
function rewrite(url: URL, body: Buffer, transform: ShapeTransform, text?: TextTransform): Buffer | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  const next: unknown = transform(url.pathname, parsed, url);
  if (next === undefined) return null;
  const json = JSON.stringify(next);
  return Buffer.from(text ? text(url.pathname, json) : json, 'utf8');
}

/** Starts a proxy on 127.0.0.1 (a free port) in front of `simUrl`. */
export async function startShapeProxy(simUrl: string, transform: ShapeTransform, text?: TextTransform): Promise<ShapeProxy> {
  const base = new URL(simUrl);
  const server = createServer((req, res) => {
    void (async () => {
      const target = new URL(req.url ?? '/', base);
      const upstream = await forward(target, req, await readAll(req));
      const body = rewrite(target, upstream.body, transform, text) ?? upstream.body;
      const headers: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(upstream.headers)) if (v !== undefined && !BODY_HEADERS.has(k)) headers[k] = v;
      headers['content-length'] = String(body.length);
      res.writeHead(upstream.status, headers);
      res.end(body);
    })().catch((err: unknown) => {
      // A transform that throws is a bug in the test: make it loud in the response pitwall sees.
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`shape proxy: ${String(err)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
