import type http from 'node:http';
import { createGunzip, createInflate, createInflateRaw, type Gunzip, type Inflate, type InflateRaw } from 'node:zlib';

import { EXIT, PitwallError } from '../errors.js';

/**
 * What a body may cost, enforced while it is read: the bytes as received, the bytes after
 * decoding, and a hook that holds each decoded chunk in the process's byte budget (it returns a
 * promise when the chunk must wait, and the connection is paused until it resolves).
 */
export interface BodyLimits {
  maxBytes: number;
  maxDecodedBytes: number;
  onDecoded?: (bytes: number) => Promise<void> | null;
  /** Told of each chunk as received (before decoding), and of the body's end: what judges its pace (body-pace.ts). */
  onReceived?: (bytes: number, ended: boolean) => void;
  /** Told when the reader pauses the connection (its decoder or the budget is behind) and resumes it. */
  onReaderPaused?: (paused: boolean) => void;
}

/** The setting behind each limit, named in every message about it. */
export const LIMIT_SETTINGS = { received: 'PITWALL_MAX_BODY_BYTES', decoded: 'PITWALL_MAX_DECODED_BYTES' } as const;

/** A body that passed one of its limits: reading stopped there, and the connection was dropped. */
export class BodyTooLargeError extends PitwallError {
  override readonly name = 'BodyTooLargeError';
  // Names the limit and its setting; the client reports it as an ApiError of kind too-large.
  readonly code = 'body-too-large';
  readonly exitStatus = EXIT.failed;
  readonly expected = true;

  constructor(
    readonly measure: keyof typeof LIMIT_SETTINGS,
    readonly limit: number,
    /** What the response declared (Content-Length), when it declared more than the limit. */
    readonly declared?: number,
  ) {
    const what = measure === 'received' ? 'as received' : 'after decoding';
    const size = declared === undefined ? `more than ${formatBytes(limit)}` : `${formatBytes(declared)} (Content-Length)`;
    super(`the body is ${size} ${what}; the limit is ${formatBytes(limit)} (${LIMIT_SETTINGS[measure]})`);
  }
}

/** A body whose Content-Encoding could not be decoded (a broken gzip or deflate stream). */
export class BodyDecodeError extends PitwallError {
  override readonly name = 'BodyDecodeError';
  readonly code = 'body-decode';
  readonly exitStatus = EXIT.failed;
  readonly expected = false;
}

/**
 * A body whose connection closed before its end: fewer bytes than its Content-Length announced,
 * or a chunked body without its last chunk. Received bytes are counted as sent (before decoding).
 */
export class ShortBodyError extends PitwallError {
  override readonly name = 'ShortBodyError';
  readonly code = 'body-short';
  readonly exitStatus = EXIT.failed;
  readonly expected = false;

  constructor(
    readonly received: number,
    /** What the Content-Length announced; undefined for a chunked body. */
    readonly declared: number | undefined,
    options: { cause?: unknown } = {},
  ) {
    const of = declared === undefined ? `${received} bytes of a chunked body, before its last chunk` : `${received} of the ${declared} bytes its Content-Length announced`;
    super(`the body was cut short: the connection closed after ${of}`, options);
  }
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

type Decoder = Gunzip | Inflate | InflateRaw;

/**
 * A streaming decoder for the body's Content-Encoding, or null for an identity body. zlib's
 * streams work on the thread pool a chunk at a time, so a large body is never inflated in one
 * synchronous call on the event loop, and inflating stops as soon as the output passes its limit.
 * "deflate" is meant to be zlib-wrapped, but some servers send it raw: the first byte tells.
 */
function decoderFor(encoding: string | undefined, first: Buffer): Decoder | null {
  switch (encoding?.trim().toLowerCase()) {
    case undefined:
    case '':
    case 'identity':
      return null;
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      // A zlib header: compression method 8 in the low nibble, and the two bytes a multiple of 31.
      return first.length >= 2 && (first[0]! & 0x0f) === 8 && ((first[0]! << 8) | first[1]!) % 31 === 0 ? createInflate() : createInflateRaw();
    default:
      throw new BodyDecodeError(`the response's Content-Encoding ${JSON.stringify(encoding)} is not one pitwall asked for`);
  }
}

/** The body's bytes as one ArrayBuffer, without a copy when the buffer is the body's own. */
function arrayBufferOf(body: Buffer): ArrayBuffer {
  return body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? (body.buffer as ArrayBuffer) : new Uint8Array(body).buffer;
}

/**
 * The whole decoded body of `res`, within `limits`. A body over a limit rejects with
 * BodyTooLargeError the moment it passes it (or at once, when its Content-Length says so) and
 * its connection is destroyed, so nothing more of it is read; a connection closed before the
 * body's end rejects as ShortBodyError; a broken encoding as BodyDecodeError.
 */
export function readBody(res: http.IncomingMessage, limits: BodyLimits): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let decodedBytes = 0;
    let decoder: Decoder | null | undefined;
    let settled = false;

    // The connection waits on the reader: that time is pitwall's, not the upstream's (body-pace.ts).
    const pauseConnection = () => {
      res.pause();
      limits.onReaderPaused?.(true);
    };
    const resumeConnection = () => {
      res.resume();
      limits.onReaderPaused?.(false);
    };
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      decoder?.destroy();
      res.destroy();
      reject(err);
    };
    const finish = () => {
      if (settled) return;
      settled = true;
      resolve(arrayBufferOf(Buffer.concat(chunks, decodedBytes)));
    };
    /** A decoded chunk: counted, held in the budget (pausing the connection while it waits), kept. */
    const keep = (chunk: Buffer) => {
      decodedBytes += chunk.length;
      if (decodedBytes > limits.maxDecodedBytes) return fail(new BodyTooLargeError('decoded', limits.maxDecodedBytes));
      chunks.push(chunk);
      const waiting = limits.onDecoded?.(chunk.length);
      if (!waiting) return;
      if (decoder) {
        decoder.pause();
        waiting.then(() => decoder?.resume(), fail);
        return;
      }
      pauseConnection();
      waiting.then(resumeConnection, fail);
    };

    const length = Number(res.headers['content-length'] ?? Number.NaN);
    const declared = Number.isFinite(length) ? length : undefined;
    if (declared !== undefined && declared > limits.maxBytes) return fail(new BodyTooLargeError('received', limits.maxBytes, declared));
    // Node reports a connection lost mid-body as "aborted" (or only by 'close'): named by what came.
    const cutShort = (cause?: unknown) => fail(new ShortBodyError(received, declared, { cause }));

    res.on('data', (chunk: Buffer) => {
      if (settled) return;
      received += chunk.length;
      limits.onReceived?.(chunk.length, false);
      if (received > limits.maxBytes) return fail(new BodyTooLargeError('received', limits.maxBytes));
      if (decoder === undefined) {
        try {
          decoder = decoderFor(res.headers['content-encoding'], chunk);
        } catch (err) {
          return fail(err);
        }
        if (decoder) {
          decoder.on('data', keep);
          decoder.on('error', (err) => fail(new BodyDecodeError(`the body's ${res.headers['content-encoding']} encoding is broken: ${err.message}`)));
          decoder.on('end', finish);
          // The decoder's input backs up while its output waits for the budget: pause the socket too.
          decoder.on('drain', resumeConnection);
        }
      }
      if (!decoder) return keep(chunk);
      if (!decoder.write(chunk)) pauseConnection();
    });
    res.on('error', (err) => (res.complete ? fail(err) : cutShort(err)));
    res.once('close', () => {
      if (!res.complete) cutShort();
    });
    res.once('end', () => {
      limits.onReceived?.(0, true);
      // An empty body never made a decoder: there is nothing to decode.
      if (decoder) decoder.end();
      else finish();
    });
  });
}
