import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Rewrites one parsed response body; `path` is the request's pathname (`/v2/schedules/results/`). */
export type BodyTransform = (path: string, body: unknown) => unknown;

export interface ShapeProxy {
  /** The proxy's origin, to use as MRP_API_BASE_URL. */
  url: string;
  close: () => Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 in front of the simulator that changes the shape of what it
 * answers: each response body is parsed, given to `transform`, and sent re-serialised (a body that
 * is not JSON passes through unchanged). Status and content type are kept. For tests of what
 * pitwall does when the upstream's shape changes: nothing of pitwall is replaced.
 */
export async function startShapeProxy(upstreamUrl: string, transform: BodyTransform): Promise<ShapeProxy> {
  const server: Server = createServer((req: IncomingMessage, res) => {
    void (async () => {
      try {
        const target = new URL(req.url ?? '/', upstreamUrl);
        const upstream = await fetch(target, { method: req.method ?? 'GET' });
        const text = await upstream.text();
        let parsed: unknown;
        let json = true;
        try {
          parsed = JSON.parse(text) as unknown;
        } catch {
          json = false;
        }
        // A transform that throws answers 502 (below), so a broken test shows as such.
        const out = json ? JSON.stringify(transform(target.pathname, parsed)) : text;
        res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
        res.end(out);
      } catch (err) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`shape proxy: ${String(err)}`);
      }
    })();
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
