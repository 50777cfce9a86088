import { redact, redactError } from '../secrets.js';

import { MAX_BODY_DEPTH, nestsDeeperThan, parseBody, type ParsedBody } from './body.js';
import type { ApiResult, GetOptions } from './client.js';
import { PayloadError, type ApiErrorKind } from './errors.js';
import { maskSecretsInText, maskSecretsInValue, mayHideEscaped } from './mask-secrets.js';
import { envelope, isRequestValid } from './schemas/envelope.js';

/** What one failed attempt tells the retry loop. */
export interface Failure {
  kind: ApiErrorKind;
  retryable: boolean;
  message: string;
  status?: number;
  retryAfterMs?: number | null;
  cause?: unknown;
}

/** An answer, a failure to retry or report, or a body that is JSON but not an envelope. */
export type AttemptOutcome = { result: ApiResult } | { failure: Failure } | { rejected: PayloadError };

/**
 * Turns a 2xx body into a result: a body the caller already knows, an answer (valid or
 * `RequestValid` 0), a failure worth a retry (not JSON: usually cut off), or a reject (JSON the
 * upstream would serve again: too deep, or not a v2 envelope). Every text that leaves here has the
 * key taken out: the upstream's text could quote the request URL.
 */
export function interpretBody(
  bytes: Uint8Array,
  { shownUrl, attempts, known, secrets }: { shownUrl: string; attempts: number; known: GetOptions['known']; secrets: string[] },
): AttemptOutcome {
  if (known?.(bytes)) return { result: { kind: 'known', attempts, bytes: bytes.byteLength } };
  // Masked before anything reads the body: what is parsed, kept and stored never holds a secret.
  const { text, masked } = maskSecretsInText(new TextDecoder().decode(bytes), secrets);
  let parsed: ParsedBody;
  try {
    parsed = parseBody(text);
  } catch (err) {
    if (!(err instanceof PayloadError)) throw err;
    // Truncated or garbled JSON: the next attempt usually gets the whole body. The snippet
    // is the upstream's text, which could quote the request URL, so it is scrubbed too.
    const cause = new PayloadError(err.message, {
      snippet: redact(err.snippet, secrets),
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
    return { rejected: new PayloadError(message, { snippet: redact(text, secrets), url: shownUrl }) };
  }
  const checked = envelope.safeParse(value);
  if (!checked.success) {
    const message = `GET ${shownUrl} returned JSON that is not a v2 envelope`;
    const snippet = redact(text, secrets);
    return { rejected: new PayloadError(message, { snippet, url: shownUrl, issues: checked.error.issues }) };
  }
  const body = value as Record<string, unknown>;
  const maskedValues = masked + (mayHideEscaped(json) ? maskSecretsInValue(body, secrets) : 0);
  if (!isRequestValid(body.RequestValid)) {
    const reason = `RequestValid is ${JSON.stringify(body.RequestValid)}`;
    return { result: { kind: 'invalid', body, reason, attempts } };
  }
  // The text is stored (pitwall.responses): masked above; a secret spelled in escapes is masked in the stored text as its JSON.
  const kept = maskedValues > masked ? JSON.stringify(body) : json;
  return { result: { kind: 'ok', body, text: kept, repaired, attempts, bytes: bytes.byteLength, maskedValues } };
}
