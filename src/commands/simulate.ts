import type { z } from 'zod';

import { FAULT_KINDS, faultConfigSchema, MAX_SITES, quirksSchema, SIMULATOR_KEY } from '../simulator/options.js';
import { startSimulator } from '../simulator/server.js';
import { DEFAULT_QUIRKS, type Scale } from '../simulator/world/types.js';

import { EXIT, HELP, UsageError, parse, worldToday, type CommandContext } from './context.js';

const SCALES: readonly Scale[] = ['tiny', 'small', 'medium', 'large'];
const DEFAULT_PORT = 4010;

/** `pitwall simulate --help`: the simulator's own options; fault kinds and quirks come from their schemas. */
export const help = `pitwall simulate: serve the built-in MyRacePass v2 API simulator until stopped

Usage: pitwall simulate [options]

Options:
  --scale ${SCALES.join('|').padEnd(26)}how big a world (default small)
  --seed N                          seeds the world, fault picking and quirks (default 7)
  --today YYYY-MM-DD                the world's today: seasons up to it have results (default the
                                    machine's date, as for pitwall demo)
  --port N                          port to listen on, 0 for any free one (default ${DEFAULT_PORT})
  --host ADDRESS                    address to listen on (default 127.0.0.1)
  --key KEY                         the API key it accepts (default ${SIMULATOR_KEY})
  --sites N                         serve N sites (1-${MAX_SITES}), one key each: sim-site-1 ... sim-site-N (not with --key)
  --faults JSON                     faults to inject, e.g. '{"rate":0.1,"kinds":["http503","reset"]}'
                                    fields: ${Object.keys(faultConfigSchema.shape).join(', ')}
                                    kinds: ${FAULT_KINDS.join(', ')} (default all; rate 0 = none)
  --quirks JSON                     how often each upstream quirk shows, 0..1, e.g. '{"duplicateRows":0.05}'
                                    ${Object.entries(DEFAULT_QUIRKS).map(([name, share]) => `${name} ${share}`).join(', ')} by default
  --drift                           serve bodies that differ from pitwall's declared shapes, as a drifted
                                    upstream's might (a renamed field, another date format, new fields:
                                    docs/simulator.md); the truth is unchanged, so a rehearsal of probe,
                                    sync, drift --suggest and rebuild ends equal to it
  -h, --help                        this help

While it runs, faults, quirks, drift and the clock can be changed at <url>/__simulator/ (faults, quirks, drift, clock);
<url>/__simulator/world describes the world.
`;

/** The flags `help` explains. */
export const OPTIONS = {
  ...HELP,
  port: { type: 'string' },
  host: { type: 'string' },
  seed: { type: 'string' },
  scale: { type: 'string' },
  today: { type: 'string' },
  key: { type: 'string' },
  sites: { type: 'string' },
  faults: { type: 'string' },
  quirks: { type: 'string' },
  drift: { type: 'boolean' },
} as const;

/** A JSON flag checked by its schema: one usage line naming the flag and the first problem. */
function jsonFlag<T extends z.ZodTypeAny>(value: string | undefined, name: string, schema: T): z.input<T> | undefined {
  if (value === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch (err) {
    throw new UsageError(`--${name} must be JSON (${(err as Error).message})`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`--${name}: ${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}`);
  }
  return json as z.input<T>;
}

function whole(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

/** `pitwall simulate`: serve the simulator until the first signal. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({ args: ctx.args, options: OPTIONS });
  const today = worldToday(values.today);
  const sites = whole(values.sites, 'sites');
  if (sites !== undefined && (sites < 1 || sites > MAX_SITES)) throw new UsageError(`--sites must be from 1 to ${MAX_SITES}`);
  if (sites !== undefined && values.key) throw new UsageError('--sites names its own keys (sim-site-1 ...); leave out --key');
  const scale = (values.scale ?? 'small') as Scale;
  if (!SCALES.includes(scale)) throw new UsageError(`--scale must be one of ${SCALES.join(', ')}`);
  const seed = whole(values.seed, 'seed');
  const faults = jsonFlag(values.faults, 'faults', faultConfigSchema);
  const quirks = jsonFlag(values.quirks, 'quirks', quirksSchema);
  const port = whole(values.port, 'port') ?? DEFAULT_PORT;
  const sim = await startSimulator({
    port,
    scale,
    ...(values.host ? { host: values.host } : {}),
    ...(seed !== undefined ? { seed } : {}),
    today,
    ...(values.key ? { key: values.key } : {}),
    ...(sites !== undefined ? { sites } : {}),
    ...(faults !== undefined ? { faults } : {}),
    ...(quirks !== undefined ? { quirks } : {}),
    ...(values.drift ? { drift: true } : {}),
  }).catch((err: unknown) => {
    // A port that cannot be had is a bad --port, said as every bad value is.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EADDRINUSE' && code !== 'EACCES') throw err;
    throw new UsageError(`--port ${port}: ${values.host ?? '127.0.0.1'}:${port} ${code === 'EADDRINUSE' ? 'is already in use' : 'may not be bound by this user'}; choose another (0 for any free one) or stop what holds it`);
  });
  const s = sim.world.summary();
  ctx.out(
    [
      `simulator listening (seed ${s.seed}, scale ${s.scale}, today ${s.today}${values.drift ? ', bodies drifted from the declared shapes' : ''})`,
      `  MRP_API_BASE_URL=${sim.url}`,
      ...(sites === undefined ? [`  MRP_API_KEY=${sim.key}`] : sim.sites.map((site, i) => `  site ${i + 1} key: ${site.key}`)),
      `  ${s.events} events in ${s.years.length} seasons, ${s.resultRows} result rows, ${s.drivers} drivers`,
      `  admin: ${sim.url}/__simulator/world`,
    ].join('\n'),
  );
  await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
  await sim.close();
  return EXIT.ok;
}
