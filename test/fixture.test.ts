import { describe, expect, it } from 'vitest';

import { useSimulator } from './helpers/fixture.js';
import { runMisbehavingFile } from './helpers/misbehaving-run.js';

describe('a fixture stand-in', () => {
  const sim = useSimulator({ scale: 'tiny', seed: 1 });
  let outside: unknown;
  try {
    void sim.url;
  } catch (err) {
    outside = err;
  }

  it('forwards to the resource its beforeAll opened', async () => {
    const res = await fetch(`${sim.url}/v2/schedules/years/?key=${sim.key}`);
    expect(res.status).toBe(200);
    expect(sim.requests().total).toBe(1);
  });

  it('says so when read before its beforeAll, at collection', () => {
    expect(outside).toBeInstanceOf(Error);
    expect((outside as Error).message).toBe('the simulator is not open here (reading .url): use it inside a test or a hook that runs after its beforeAll');
  });
});

describe("a block's resources", () => {
  it('close newest first, every closer run though a test and a closer failed', async () => {
    const { code, output } = await runMisbehavingFile('closes-in-reverse');
    expect(code, output).toBe(1);
    expect(output).toContain('closed: third, second, first');
    expect(output).toContain('Error: second failed to close');
    expect(output).toContain("expected 'third' to be 'not third'");
  });
});

describe('file-level resources in a process that runs several files', () => {
  it("are each file's own, closed at its end: the next file in the process registers its own closer", async () => {
    const { code, output } = await runMisbehavingFile('top-level', 'vitest.shared.config.ts');
    expect(code, output).toBe(0);
    // Both ran, one after the other in one process, as the suite's shared processes run files.
    const pids = [...output.matchAll(/top-level-[ab] ran in process (\d+)/g)].map((m) => m[1]);
    expect(pids, output).toHaveLength(2);
    expect(new Set(pids).size, output).toBe(1);
    expect(output).not.toContain('left 1 thing(s) running');
  });
});
