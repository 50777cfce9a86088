import { startSimulator } from '../simulator/server.js';
import type { Scale } from '../simulator/world/types.js';

import { EXIT, HELP, UsageError, parse, type CommandContext } from './context.js';

const SCALES: readonly Scale[] = ['tiny', 'small', 'medium', 'large'];

function whole(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

/** `pitwall simulate`: serve the simulator until the first signal. */
export async function run(ctx: CommandContext): Promise<number> {
  const { values } = parse({
    args: ctx.args,
    options: {
      ...HELP,
      port: { type: 'string' },
      host: { type: 'string' },
      seed: { type: 'string' },
      scale: { type: 'string' },
      today: { type: 'string' },
      key: { type: 'string' },
      sites: { type: 'string' },
    },
  });
  const sites = whole(values.sites, 'sites');
  if (sites !== undefined && (sites < 1 || sites > 100)) throw new UsageError('--sites must be from 1 to 100');
  if (sites !== undefined && values.key) throw new UsageError('--sites names its own keys (sim-site-1 ...); leave out --key');
  const scale = (values.scale ?? 'small') as Scale;
  if (!SCALES.includes(scale)) throw new UsageError(`--scale must be one of ${SCALES.join(', ')}`);
  const seed = whole(values.seed, 'seed');
  const sim = await startSimulator({
    port: whole(values.port, 'port') ?? 4010,
    scale,
    ...(values.host ? { host: values.host } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(values.today ? { today: values.today } : {}),
    ...(values.key ? { key: values.key } : {}),
    ...(sites !== undefined ? { sites } : {}),
  });
  const s = sim.world.summary();
  ctx.out(
    [
      `simulator listening (seed ${s.seed}, scale ${s.scale}, today ${s.today})`,
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
