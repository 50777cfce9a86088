import { describe, expect, it } from 'vitest';

import { EXIT } from '../../src/commands/context.js';
import { OPTIONS } from '../../src/commands/simulate.js';
import { FAULT_KINDS } from '../../src/simulator/options.js';
import { createWorld } from '../../src/simulator/world/index.js';
import { DEFAULT_QUIRKS } from '../../src/simulator/world/types.js';
import { runCli, startCli } from '../helpers/cli.js';

describe('pitwall simulate --help', () => {
  it("prints the simulator's own options, not the global help", async () => {
    const r = await runCli(['simulate', '--help'], {});
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout).toMatch(/^pitwall simulate: /);
    expect(r.stdout).not.toContain('Configuration (flags override');
    for (const flag of Object.keys(OPTIONS)) expect(r.stdout, flag).toContain(`--${flag}`);
    for (const kind of FAULT_KINDS) expect(r.stdout, kind).toContain(kind);
    for (const quirk of Object.keys(DEFAULT_QUIRKS)) expect(r.stdout, quirk).toContain(quirk);
  });

  it('takes --faults and --quirks as JSON, refusing a bad one in one usage line', async () => {
    const r = await runCli(['simulate', '--port', '0', '--faults', '{"rate":2}'], {});
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toMatch(/^pitwall: --faults: rate: .+\n$/);
    const q = await runCli(['simulate', '--port', '0', '--quirks', '{"noSuchQuirk":1}'], {});
    expect(q.code).toBe(EXIT.usage);
    expect(q.stderr).toMatch(/^pitwall: --quirks: .*noSuchQuirk.*\n$/);
  });

  it('keeps the global help for a command without options of its own', async () => {
    const r = await runCli(['status', '--help'], {});
    expect(r.stdout).toContain('Configuration (flags override');
  });
});

describe('pitwall simulate without --today', () => {
  it("serves the world pitwall demo loads: the machine's date is its today, as the demo's", async () => {
    const sim = startCli(['simulate', '--port', '0', '--scale', 'tiny'], {});
    const banner = await new Promise<string>((resolve, reject) => {
      let out = '';
      sim.child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('admin:')) resolve(out);
      });
      void sim.exited.then((r) => reject(new Error(`simulate ended: ${r.code} ${r.stderr}`)));
    });
    sim.child.kill('SIGTERM');
    expect((await sim.exited).code).toBe(EXIT.ok);
    const today = /today (\d{4}-\d{2}-\d{2})\)/.exec(banner)?.[1];
    // Either side of a midnight that may fall while it starts.
    const now = new Date();
    expect([0, 1].map((d) => new Date(now.getFullYear(), now.getMonth(), now.getDate() - d).toLocaleDateString('sv'))).toContain(today);
    // What test/embedded/demo.test.ts finds the demo loads, for the same seed, scale and today.
    const world = createWorld({ seed: 7, scale: 'tiny', today: today! }).summary();
    expect(banner).toContain(`  ${world.events} events in ${world.years.length} seasons, ${world.resultRows} result rows, ${world.drivers} drivers`);
  });

  it('refuses a --today that is not a date, in one usage line', async () => {
    const r = await runCli(['simulate', '--port', '0', '--today', 'tomorrow'], {});
    expect([r.code, r.stderr]).toEqual([EXIT.usage, 'pitwall: --today must be a date, YYYY-MM-DD\n']);
  });
});
