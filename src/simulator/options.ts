import { z } from 'zod';

import { DEFAULT_QUIRKS, type Quirks, type World } from './world/types.js';

/**
 * Everything `startSimulator` and the admin API accept, validated once with zod. Fault and quirk
 * settings are replaced whole (missing fields take their defaults), so a posted config always
 * means the same thing whatever was set before it.
 */

/** The key the simulator accepts unless told otherwise. Not a secret: it only opens the simulator. */
export const SIMULATOR_KEY = 'sim-pitwall-key';

/**
 * The most sites one simulator serves: enough to load a worker with a thousand sources. A
 * thousand tiny worlds build in about 2 s and hold about 60 MB beside the server's own.
 */
export const MAX_SITES = 1000;

export const FAULT_KINDS = [
  'http429',
  'http500',
  'http502',
  'http503',
  'reset',
  'slow',
  'truncated',
  'invalid',
  'doubleComma',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

const YMD = /^\d{4}-\d{2}-\d{2}$/;

/** A real calendar day as `YYYY-MM-DD` (rejects 2024-02-30, which Date.parse would roll over). */
export const isoDay = z
  .string()
  .regex(YMD, 'expected YYYY-MM-DD')
  .refine((s) => new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), 'not a calendar date');

const fraction = z.number().min(0).max(1);
const milliseconds = z.number().int().min(0).max(3_600_000);

/** Retry-After is either delay-seconds or an HTTP-date (RFC 9110 §10.2.3); dates are re-emitted as IMF-fixdate. */
const retryAfter = z.union([
  z.number().int().min(0),
  z
    .string()
    .refine((s) => !Number.isNaN(Date.parse(s)), 'expected seconds or an HTTP date')
    .transform((s) => new Date(Date.parse(s)).toUTCString()),
]);

export const faultConfigSchema = z.strictObject({
  /** Share of API requests that get a fault, 0..1. */
  rate: fraction.default(0),
  kinds: z
    .array(z.enum(FAULT_KINDS))
    .min(1, 'name at least one fault kind')
    .default(() => [...FAULT_KINDS]),
  /** Added to every API request, faulted or not. */
  latencyMs: milliseconds.default(0),
  /** Uniform extra latency in [0, jitterMs]. */
  jitterMs: milliseconds.default(0),
  /** How long a 'slow' response stalls after its headers. */
  slowMs: milliseconds.default(60_000),
  retryAfterSeconds: retryAfter.default(1),
});
export type FaultConfig = z.output<typeof faultConfigSchema>;
export type FaultOptions = z.input<typeof faultConfigSchema>;

export const quirksSchema = z
  .strictObject({
    idsAsStrings: fraction,
    flagsAsInts: fraction,
    emptyStrings: fraction,
    decimalPoints: fraction,
    unicodeNames: fraction,
    doubleComma: fraction,
    duplicateRows: fraction,
  })
  .partial()
  .transform((q): Quirks => ({ ...DEFAULT_QUIRKS, ...q }));
export type QuirkOptions = z.input<typeof quirksSchema>;

/** The admin API's drift switch: `{ "drift": true }` turns it on, `false` off. */
export const driftSchema = z.strictObject({ drift: z.boolean() });

const worldSchema = z.custom<World>(
  (v) => typeof v === 'object' && v !== null && typeof (v as World).render === 'function',
  'expected a World (from createWorld)',
);

export const simulatorOptionsSchema = z
  .strictObject({
    port: z.number().int().min(0).max(65_535).default(0),
    host: z.string().min(1).default('127.0.0.1'),
    /** Seeds the world (when the simulator builds it), fault picking and the `,,` quirk. */
    seed: z.number().int().optional(),
    scale: z.enum(['tiny', 'small', 'medium', 'large']).optional(),
    today: isoDay.optional(),
    key: z.string().min(1).default(SIMULATOR_KEY),
    /**
     * Serve this many sites, one key each (`sim-site-1` ... `sim-site-N`, replacing `key`), each
     * key seeing its own site's world (see WorldOptions.site). Of two or more, the last is a
     * series site whose touring series also lists some events of the others, the same events
     * (WorldOptions.sites). Unset: one site and `key`.
     */
    sites: z.number().int().min(1).max(MAX_SITES).optional(),
    quirks: quirksSchema.default(DEFAULT_QUIRKS),
    faults: faultConfigSchema.default(() => faultConfigSchema.parse({})),
    /**
     * How a bad key or missing filters are answered. Upstream behaviour is undocumented; the
     * default guesses HTTP 200 with `RequestValid: 0`, the alternative answers 401/400.
     */
    invalidRequest: z.enum(['request-valid-0', 'http-error']).default('request-valid-0'),
    /** Serve bodies that differ from the declared shapes as a drifted upstream's would (src/simulator/drift.ts). */
    drift: z.boolean().default(false),
    world: worldSchema.optional(),
  })
  .refine((o) => !(o.world && (o.scale !== undefined || o.today !== undefined)), {
    message: 'pass either a built world or scale/today to build one, not both',
  })
  .refine((o) => !(o.sites !== undefined && o.world), { message: 'a built world is one site; pass sites or world, not both' });

/** The key of site `n` (1-based) of a simulator serving several. */
export const siteKey = (n: number): string => `sim-site-${n}`;
export type SimulatorOptions = z.input<typeof simulatorOptionsSchema>;
export type SimulatorConfig = z.output<typeof simulatorOptionsSchema>;

/** Options with the world's defaults resolved: seed 7 and scale 'small' unless a world is given. */
export function parseSimulatorOptions(input: SimulatorOptions = {}): SimulatorConfig & { seed: number } {
  const parsed = simulatorOptionsSchema.parse(input);
  return { ...parsed, seed: parsed.seed ?? parsed.world?.seed ?? 7 };
}
