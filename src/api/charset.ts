import { TextDecoder } from 'node:util';

import { EXIT, PitwallError } from '../errors.js';

/**
 * A body in another charset than UTF-8, which everything after the client reads (the masking of
 * the key, the unchanged-body digest, the parser): decoded from the charset its byte order mark or
 * its Content-Type names, or refused naming that charset. The same body would come again, so a
 * refusal is not retried.
 */
export class CharsetError extends PitwallError {
  override readonly name = 'CharsetError';
  readonly code = 'body-charset';
  readonly exitStatus = EXIT.failed;
  readonly expected = false;
}

/** The charset parameter of a Content-Type (`application/json; charset="UTF-16"`), or null. */
export function charsetOf(contentType: string | null): string | null {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match?.[1]?.toLowerCase() ?? null;
}

/** Byte order marks and the encoding each marks: as in the WHATWG decode algorithm, a mark outranks the label. */
const MARKS: ReadonlyArray<[mark: readonly number[], encoding: string]> = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xfe, 0xff], 'utf-16be'],
  [[0xff, 0xfe], 'utf-16le'],
];

function markedEncoding(bytes: Uint8Array): string | null {
  return MARKS.find(([mark]) => mark.every((b, i) => bytes[i] === b))?.[1] ?? null;
}

/**
 * The body as UTF-8: the bytes themselves when they are UTF-8 (by mark, by label, or with
 * neither), else decoded from the encoding the mark or the `charset` names (any label
 * TextDecoder knows: utf-16, latin1, windows-1252...). Throws CharsetError for a label it does not
 * know, or bytes that are not valid in the encoding.
 */
export function utf8Body(bytes: Uint8Array, charset: string | null): Uint8Array {
  const label = markedEncoding(bytes) ?? charset ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch {
    throw new CharsetError(`the body's charset ${JSON.stringify(label)} (its Content-Type) is not one pitwall can decode`);
  }
  if (decoder.encoding === 'utf-8') return bytes;
  try {
    return Buffer.from(decoder.decode(bytes), 'utf8');
  } catch {
    throw new CharsetError(`the body is not valid ${decoder.encoding}, the charset its Content-Type or byte order mark names`);
  }
}
