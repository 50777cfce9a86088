import { describe, expect, it } from 'vitest';

import { EXIT } from '../../src/commands/context.js';
import { OPTIONS } from '../../src/commands/simulate.js';
import { FAULT_KINDS } from '../../src/simulator/options.js';
import { DEFAULT_QUIRKS } from '../../src/simulator/world/types.js';
import { runCli } from '../helpers/cli.js';

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
