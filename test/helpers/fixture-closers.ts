import { afterAll, afterEach } from 'vitest';
import { getCurrentSuite } from 'vitest/suite';

/**
 * The closers of each describe block that test/helpers/fixture.ts opened resources in, and the
 * one hook per block that unwinds them. A module of its own, with no import from src/, so that
 * test/setup/fixture-scope.ts can reset it before each file without loading what the fixtures
 * open (a file that mocks a module of src/ must be the first to import it).
 */

export type Close = () => unknown;

interface Teardowns {
  all?: Close[];
  each?: Close[];
}

let teardownsBySuite = new WeakMap<object, Teardowns>();

/**
 * Forgets every block's closers; test/setup/fixture-scope.ts calls it before each file. A file's
 * top-level calls land in vitest's default suite, one object that a process reuses for every file
 * it runs (the test files share processes: vitest.config.ts), so without this a file would find
 * the last file's closers, register no hook of its own, and leave what it opened running.
 */
export function forgetClosers(): void {
  teardownsBySuite = new WeakMap();
}

/**
 * The closers of the current describe block, for its afterAll (or afterEach). The first `use*` in
 * a block registers the one hook that unwinds them: the hooks run in reverse (vitest's `stack`
 * order), so it runs after the block's own afterAll hooks declared later, which may still need
 * the database (stopping a worker, say).
 */
export function closersFor(perTest: boolean): Close[] {
  const suite = getCurrentSuite();
  const teardowns = teardownsBySuite.get(suite) ?? {};
  teardownsBySuite.set(suite, teardowns);
  const key = perTest ? 'each' : 'all';
  let closers = teardowns[key];
  if (!closers) {
    const stack: Close[] = [];
    closers = teardowns[key] = stack;
    (perTest ? afterEach : afterAll)(() => unwind(stack));
  }
  return closers;
}

async function unwind(closers: Close[]): Promise<void> {
  const errors: unknown[] = [];
  for (let close = closers.pop(); close; close = closers.pop()) {
    try {
      await close();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} test resources failed to close`);
}
