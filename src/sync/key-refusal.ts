import { ApiError } from '../api/errors.js';

/** An HTTP answer that refuses the caller rather than the request. */
export const isRefusalStatus = (err: unknown): boolean => err instanceof ApiError && (err.status === 401 || err.status === 403);

/** The message of a run whose every root request was refused. Names the variable, never its value. */
export const KEY_REFUSED_MESSAGE =
  'the upstream refused every request at the root of the walk (RequestValid 0 or HTTP 401/403): ' +
  'MRP_API_KEY is likely wrong, or not yet enabled for API v2';
