import { promisify } from 'node:util';
import { gunzip, gzipSync } from 'node:zlib';

const gunzipAsync = promisify(gunzip);

/** How kept bodies are compressed; stored in pitwall.responses.encoding. */
export const KEPT_ENCODING = 'gzip';

/** A response body ready to be kept in pitwall.responses. */
export interface KeptBody {
  /** The body compressed with KEPT_ENCODING. */
  body: Buffer;
  /** Its UTF-8 size before compression. */
  bytes: number;
}

/**
 * zlib's fastest level: a kept body is written once per change and read only by a rebuild, and
 * the default level took half again as much CPU per body for a fifth less space.
 */
const KEPT_LEVEL = 1;

/**
 * Compresses a body's text for pitwall.responses, on the event loop. zlib's async form does run
 * on libuv's thread pool, but it hands every 16 KB chunk back to the event loop, whose share of
 * that round trip cost as much as compressing the whole body here (profile of a first sync of the
 * medium world); it is called before the scope's transaction starts, so no lock waits for it.
 */
export function compressBody(text: string): Promise<KeptBody> {
  const raw = Buffer.from(text, 'utf8');
  return Promise.resolve({ body: gzipSync(raw, { level: KEPT_LEVEL }), bytes: raw.byteLength });
}

/** The text of a kept body. */
export async function decompressBody(body: Buffer, encoding: string): Promise<string> {
  if (encoding !== KEPT_ENCODING) throw new Error(`kept response encoded as "${encoding}"; this pitwall reads only ${KEPT_ENCODING}`);
  return (await gunzipAsync(body)).toString('utf8');
}
