import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);
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
 * Compresses a body's text for pitwall.responses. zlib's async form runs on libuv's thread
 * pool, so the event loop goes on parsing and loading other responses meanwhile; it is called
 * before the scope's transaction starts, so the transaction holds its locks no longer for it.
 */
export async function compressBody(text: string): Promise<KeptBody> {
  const raw = Buffer.from(text, 'utf8');
  return { body: await gzipAsync(raw), bytes: raw.byteLength };
}

/** The text of a kept body. */
export async function decompressBody(body: Buffer, encoding: string): Promise<string> {
  if (encoding !== KEPT_ENCODING) throw new Error(`kept response encoded as "${encoding}"; this pitwall reads only ${KEPT_ENCODING}`);
  return (await gunzipAsync(body)).toString('utf8');
}
