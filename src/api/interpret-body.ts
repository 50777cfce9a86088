import { jsonText } from '../exact-number.js';
import { redactError } from '../secrets.js';

import { MAX_BODY_DEPTH, nestsDeeperThan, parseBody, type ParsedBody } from './body.js';
import { CharsetError, utf8Body } from './charset.js';
import { PayloadError } from './errors.js';
import { maskEscapedSecrets, maskSecretsInBytes, maskSnippet } from './mask-secrets.js';
import { envelope, isRequestValid } from './schemas/envelope.js';
import type { AttemptOutcome, Failure, GetOptions } from './types.js';

/** The body as UTF-8 (charset.ts), or the failure of a charset pitwall cannot decode. */
function inUtf8(bytes: Uint8Array, charset: string | null, shownUrl: string): Uint8Array | { failure: Failure } {
  try {
    return utf8Body(bytes, charset);
  } catch (err) {
    if (!(err instanceof CharsetError)) throw err;
    return { failure: { kind: 'charset', retryable: false, message: `GET ${shownUrl} failed: ${err.message}` } };
  }
}

/**
 * Turns a 2xx body into a result: a body the caller already knows, an answer (valid or
 * `RequestValid` 0), a failure (a charset it cannot decode; not JSON, worth a retry: usually cut off), or a reject (JSON the
 * upstream would serve again: too deep, or not a v2 envelope). Every text that leaves here has the
 * key taken out: the upstream's text could quote the request URL.
 */
export function interpretBody(
  bytes: Uint8Array,
  {
    shownUrl,
    attempts,
    charset,
    known,
    secrets,
    release,
  }: { shownUrl: string; attempts: number; charset: string | null; known: GetOptions['known']; secrets: string[]; release: () => void },
): AttemptOutcome {
  const utf8 = inUtf8(bytes, charset, shownUrl);
  if ('failure' in utf8) return utf8;
  // Masked before anything reads the body, the unchanged-body digest included: what is hashed,
  // parsed, kept and stored never holds a secret.
  const screened = maskSecretsInBytes(utf8, secrets);
  const { masked } = screened;
  if (known?.(screened.bytes)) return { result: { kind: 'known', attempts, bytes: bytes.byteLength, maskedValues: masked } };
  const text = screened.text ?? new TextDecoder().decode(utf8);
  let parsed: ParsedBody;
  try {
    parsed = parseBody(text);
  } catch (err) {
    if (!(err instanceof PayloadError)) throw err;
    // Truncated or garbled JSON: the next attempt usually gets the whole body. The snippet
    // is the upstream's text, which could quote the request URL, so it is scrubbed too.
    const cause = new PayloadError(err.message, {
      snippet: maskSnippet(text, secrets),
      url: shownUrl,
      cause: redactError(err.cause, secrets),
    });
    const message = `GET ${shownUrl} returned a body that is not JSON`;
    return { failure: { kind: 'body', retryable: true, message, cause } };
  }
  const { value, repaired, text: json } = parsed;
  if (nestsDeeperThan(value, MAX_BODY_DEPTH)) {
    // The upstream would serve the same body again: a reject, not a retry.
    const message = `GET ${shownUrl} returned JSON nested deeper than ${MAX_BODY_DEPTH} levels`;
    return { rejected: new PayloadError(message, { snippet: maskSnippet(text, secrets), url: shownUrl }) };
  }
  const checked = envelope.safeParse(value);
  if (!checked.success) {
    const message = `GET ${shownUrl} returned JSON that is not a v2 envelope`;
    const snippet = maskSnippet(text, secrets);
    return { rejected: new PayloadError(message, { snippet, url: shownUrl, issues: checked.error.issues }) };
  }
  const body = value as Record<string, unknown>;
  const escaped = maskEscapedSecrets(json, body, secrets);
  const maskedValues = masked + escaped;
  if (!isRequestValid(body.RequestValid)) {
    const reason = `RequestValid is ${JSON.stringify(body.RequestValid)}`;
    return { result: { kind: 'invalid', body, reason, attempts } };
  }
  // The text is kept (pitwall.responses): a secret spelled in escapes was masked only in the
  // parsed body, so that body's JSON is kept instead, and the digest of the bytes describes neither.
  if (escaped > 0) return { result: { kind: 'ok', body, text: jsonText(body) ?? '', repaired, attempts, bytes: bytes.byteLength, maskedValues, reserialized: true, release } };
  return { result: { kind: 'ok', body, text: json, repaired, attempts, bytes: bytes.byteLength, maskedValues, reserialized: false, release } };
}
