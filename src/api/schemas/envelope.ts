import { z } from 'zod';

/**
 * The envelope every v2 response shares. `RequestCached` and `RequestCachedTicks` (.NET ticks)
 * describe the cache, not the data, so they are excluded from response hashing.
 */
export const envelope = z.looseObject({
  RequestValid: z.union([z.number(), z.string(), z.boolean()]),
  ItemsReturned: z.union([z.number(), z.string()]).optional(),
  RequestCached: z.union([z.number(), z.string(), z.boolean()]).optional(),
  RequestCachedTicks: z.union([z.number(), z.string()]).optional(),
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
