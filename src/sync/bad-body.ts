import { ApiError, PayloadError } from '../api/errors.js';
import type { Endpoint } from '../endpoints/endpoint.js';
import { EXIT, PitwallError } from '../errors.js';

/** A body whose list is missing or is not a list: the endpoint's list key changed, say. */
export class ListKeyError extends PitwallError {
  override readonly name = 'ListKeyError';
  readonly code = 'list-key';
  readonly exitStatus = EXIT.failed;
  readonly expected = false;
}

/** The response's main list; a body without it is rejected whole. */
export function itemsOf(ep: Pick<Endpoint, 'path' | 'arrayKey'>, body: Record<string, unknown>): unknown[] {
  const items = body[ep.arrayKey];
  if (!Array.isArray(items)) throw new ListKeyError(`${ep.path}: the response has no "${ep.arrayKey}" list`);
  return items;
}

/**
 * Why a whole body could not be used, the one classification sync, rebuild and probe share:
 * - `transport`: not JSON even after the `,,` repair (cut off or garbled on the way; the client
 *   retried it already, and a kept body that no longer parses is the same);
 * - `envelope`: JSON, but not a v2 envelope (or nested past the limit);
 * - `list-key`: an envelope without the endpoint's list.
 * Each goes to pitwall.rejects with a bounded snippet; the walk goes on.
 */
export type BadBodyKind = 'transport' | 'envelope' | 'list-key';

export interface BadBody {
  readonly kind: BadBodyKind;
  /** The start of the body as received, when the error kept one. */
  readonly snippet: string;
}

export function classifyBadBody(err: unknown): BadBody | null {
  if (err instanceof ApiError && err.kind === 'body') {
    return { kind: 'transport', snippet: err.cause instanceof PayloadError ? err.cause.snippet : '' };
  }
  if (err instanceof SyntaxError) return { kind: 'transport', snippet: '' };
  // The client throws the PayloadError of a body it parsed but could not take as an envelope.
  if (err instanceof PayloadError) return { kind: 'envelope', snippet: err.snippet };
  if (err instanceof ListKeyError) return { kind: 'list-key', snippet: '' };
  return null;
}
