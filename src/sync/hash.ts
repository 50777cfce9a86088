import { createHash } from 'node:crypto';

import { CACHE_FIELDS } from '../api/schemas/envelope.js';

/**
 * A digest of a response's data. The cache fields (RequestCached, RequestCachedTicks) change
 * with every cache refill while the data does not, so they are left out.
 */
export function responseHash(body: Record<string, unknown>): string {
  const data: Record<string, unknown> = { ...body };
  for (const f of CACHE_FIELDS) delete data[f];
  return createHash('sha256').update(JSON.stringify(data)).digest('base64url');
}
