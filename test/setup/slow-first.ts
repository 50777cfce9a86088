import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/**
 * Files whose tests run real pitwall processes, servers and kills, and wait out heartbeats and
 * timeouts: a minute or more each, mostly waiting. Started first, they overlap the quick files
 * instead of running alone at the end of the run.
 */
const PROCESS_LEVEL = /\/test\/(reliability|worker|embedded|install)\/|\/test\/(run-cleanup|readme-steps|coordination\/guest)\.test\.ts$/;

/**
 * vitest's own order (failed and slow files first when it has timings from an earlier run, else
 * the largest files first), with the process-level files moved ahead: a fresh clone, as in CI,
 * has no timings, and those files are small.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const slow = (f: TestSpecification) => PROCESS_LEVEL.test(f.moduleId);
    return [...sorted.filter(slow), ...sorted.filter((f) => !slow(f))];
  }
}
