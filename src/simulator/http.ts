import type { IncomingMessage, ServerResponse } from 'node:http';

import { EXIT, PitwallError } from '../errors.js';

import { JSON_CONTENT_TYPE } from './jsonp.js';

/** Small response and body helpers shared by the API and admin routes. */

export function sendText(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...headers,
    'Content-Type': contentType,
    'Content-Length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  sendText(res, status, JSON_CONTENT_TYPE, JSON.stringify(value), headers);
}

/** A request to the simulator's admin API it cannot take: answered 400 with the message, never the end of a command. */
export class BadRequestError extends PitwallError {
  override readonly name = 'BadRequestError';
  // The caller's mistake, as a bad flag is.
  readonly code = 'bad-request';
  readonly exitStatus = EXIT.usage;
  readonly expected = true;
  constructor(
    message: string,
    readonly details?: unknown,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Admin bodies are small JSON objects; anything past this is a client bug, not data. */
const MAX_BODY_BYTES = 1024 * 1024;

/** The request body parsed as JSON; an empty body reads as `{}`. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BadRequestError(`body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new BadRequestError('body is not valid JSON', undefined, { cause: err });
  }
}
