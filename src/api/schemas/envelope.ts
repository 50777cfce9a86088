import { z } from 'zod';

import { ExactNumber } from '../../exact-number.js';

/**
 * The envelope every v2 response shares. `RequestCached` and `RequestCachedTicks` (.NET ticks)
 * describe the cache, not the data, so they are excluded from response hashing.
 */
// A number JSON.parse cannot carry (src/exact-number.ts) is still a number here, as Infinity was.
const number = z.union([z.number(), z.instanceof(ExactNumber)]);

export const envelope = z.looseObject({
  RequestValid: z.union([number, z.string(), z.boolean()]),
  ItemsReturned: z.union([number, z.string()]).optional(),
  RequestCached: z.union([number, z.string(), z.boolean()]).optional(),
  RequestCachedTicks: z.union([number, z.string()]).optional(),
});

export const CACHE_FIELDS = ['RequestCached', 'RequestCachedTicks'] as const;

export function isRequestValid(value: unknown): boolean {
  return value === 1 || value === '1' || value === true || value === 'true';
}

export interface EnvelopeWire {
  RequestValid: 0 | 1;
  ItemsReturned: number;
  RequestCached: 0 | 1;
  RequestCachedTicks: number;
}
