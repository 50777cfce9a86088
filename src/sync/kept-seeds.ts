import { parseJson } from '../api/parse-json.js';

import { itemsOf } from './bad-body.js';
import type { Endpoint, Params } from './endpoints.js';
import type { Seed } from './extract/types.js';
import { saltedHash } from './hash.js';
import { decompressBody } from './kept-body.js';
import type { ProcessContext } from './process-response.js';
import { newestResponse } from './sql/responses.js';

/**
 * The seeds a parent scope's children fan out from, read from its newest kept body instead of a
 * request, when that body is the version whose hash the scope records (`hash`); null when it is
 * not kept, is another version, or cannot be read, and the scope must be asked for again.
 */
export async function keptSeeds(ctx: ProcessContext, ep: Endpoint, params: Params, query: string, hash: string): Promise<Seed[] | null> {
  const kept = await newestResponse(ctx.pool, { source: ctx.source, endpoint: ep.name, params: query });
  const overrides = ctx.overrides?.endpoints.get(ep.name);
  if (!kept || saltedHash(kept.responseHash, overrides?.digest) !== hash) return null;
  try {
    const body = parseJson(await decompressBody(kept.body, kept.encoding)) as Record<string, unknown>;
    return ep.extract(itemsOf(ep, body), params, body, overrides).seeds;
  } catch (err) {
    ctx.logger.warn({ endpoint: ep.name, params: query, err: String(err) }, 'kept body of a finished scope could not be read; asking for the scope again');
    return null;
  }
}
