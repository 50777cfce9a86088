import type pg from 'pg';
import { beforeAll, beforeEach } from 'vitest';

import type { WarehouseKind } from '../../src/db/open-warehouse.js';
import { createSilentLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/server.js';
import { createWorker, type Worker } from '../../src/worker/worker.js';
import { simulatorClock, workerConfig } from '../worker/helpers.js';

import { createTestDatabase, type TestDatabase } from './db.js';
import { closersFor } from './fixture-closers.js';

/**
 * The set-up most test files share, "a database, a simulator, a worker", as `use*` calls made in
 * a describe block (or at the top of a file). Each opens its resource in beforeAll and hands back
 * a stand-in that forwards to it, so test bodies read `db.pool` and `sim.url` as if they held the
 * real objects. Whatever a block opened is closed in one afterAll, newest first, each closer run
 * even when a test, a hook or another closer failed; what did not open is not closed.
 *
 * `{ perTest: true }` opens and closes around every test instead (beforeEach/afterEach).
 */
export interface FixtureOptions {
  perTest?: boolean;
}

/**
 * Opens resources together (a database and a simulator start in parallel) and keeps, for each
 * that opened, its closer; one that failed to open fails the hook after the others are recorded,
 * so they are still closed.
 */
function useResources<T extends object[]>(
  names: string[],
  open: () => { [K in keyof T]: Promise<T[K]> },
  close: { [K in keyof T]: (value: T[K]) => unknown },
  options: FixtureOptions = {},
): T {
  const closers = closersFor(options.perTest ?? false);
  const current: (object | undefined)[] = names.map(() => undefined);
  (options.perTest ? beforeEach : beforeAll)(async () => {
    const settled = await Promise.allSettled(open());
    settled.forEach((result, i) => {
      if (result.status !== 'fulfilled') return;
      current[i] = result.value as object;
      closers.push(async () => {
        current[i] = undefined;
        await (close[i] as (value: unknown) => unknown)(result.value);
      });
    });
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  });
  return names.map((name, i) => standIn(name, () => current[i])) as T;
}

/**
 * An object that forwards to the resource once its hook has opened it. Touched before (at
 * collection time, in a describe body) or after it is closed, it says so instead of handing out
 * `undefined` or an ended pool.
 */
function standIn<T extends object>(name: string, current: () => object | undefined): T {
  const target = (prop: string | symbol): object => {
    const value = current();
    if (value) return value;
    throw new Error(`${name} is not open here (reading .${String(prop)}): use it inside a test or a hook that runs after its beforeAll`);
  };
  return new Proxy({} as T, {
    get(_, prop) {
      // Awaiting or returning the stand-in from an async function looks for `then`.
      if (prop === 'then' && !current()) return undefined;
      const value = target(prop);
      const field: unknown = Reflect.get(value, prop, value);
      return typeof field === 'function' ? (field as (...args: unknown[]) => unknown).bind(value) : field;
    },
    has: (_, prop) => Reflect.has(target(prop), prop),
    ownKeys: () => Reflect.ownKeys(target('ownKeys')),
    getOwnPropertyDescriptor: (_, prop) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(prop), prop);
      // The proxy's own target has no such property: the descriptor must say it can change.
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}

/** Anything else a block opens and must close (a proxy, a role), on the same stack as the rest. */
export function useResource<T extends object>(name: string, open: () => Promise<T>, close: (value: T) => unknown, options?: FixtureOptions): T {
  const [resource] = useResources<[T]>([name], () => [open()], [close], options);
  return resource;
}

/** A fresh database (see createTestDatabase), dropped when the block ends. */
export function useDatabase(backend: WarehouseKind = 'postgres', options?: FixtureOptions & { foreignKeys?: false }): TestDatabase {
  const open = async () => {
    const db = await createTestDatabase(backend);
    if (options?.foreignKeys === false) await dropForeignKeys(db.pool);
    return db;
  };
  const [db] = useResources<[TestDatabase]>([`the ${backend} test database`], () => [open()], [(d) => d.drop()], options);
  return db;
}

/**
 * Drops the warehouse's foreign keys, for tests of the loader that write one table's rows alone,
 * without the parents the keys ask for (src/analytics/relationships.ts; the relationships test
 * and every sync test keep them).
 */
async function dropForeignKeys(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ tbl: string; name: string }>(
    `SELECT c.conrelid::regclass::text AS tbl, c.conname AS name FROM pg_constraint AS c WHERE c.contype = 'f' AND c.connamespace::regnamespace::text IN ('mrp', 'pitwall', 'analytics')`,
  );
  for (const { tbl, name } of rows) await pool.query(`ALTER TABLE ${tbl} DROP CONSTRAINT ${name}`);
}

/** One client of a database from useDatabase (declared before it), released before the database is dropped. */
export function usePoolClient(db: TestDatabase, options?: FixtureOptions): pg.PoolClient {
  const [client] = useResources<[pg.PoolClient]>(['the pool client'], () => [db.pool.connect()], [(c) => c.release()], options);
  return client;
}

/** A simulator on a free loopback port, closed when the block ends. */
export function useSimulator(simulator: SimulatorOptions = {}, options?: FixtureOptions): RunningSimulator {
  const [sim] = useResources<[RunningSimulator]>(['the simulator'], () => [startSimulator(simulator)], [(s) => s.close()], options);
  return sim;
}

export interface Warehouse {
  db: TestDatabase;
  sim: RunningSimulator;
}

/** A fresh database and a simulator, started together; the simulator closes first. */
export function useWarehouse(backend: WarehouseKind, simulator: SimulatorOptions, options?: FixtureOptions): Warehouse {
  const [db, sim] = useResources<[TestDatabase, RunningSimulator]>(
    [`the ${backend} test database`, 'the simulator'],
    () => [createTestDatabase(backend), startSimulator(simulator)],
    [(d) => d.drop(), (s) => s.close()],
    options,
  );
  return { db, sim };
}

/**
 * A started worker over a warehouse from useWarehouse (declared before it), configured by
 * workerConfig (no job fires on its own) plus `env`, on the simulator's clock; stopped before
 * the warehouse closes. `PITWALL_HTTP_PORT: '0'` gives it an endpoint on a free port.
 */
export function useWorker({ db, sim }: Warehouse, env: Record<string, string> = {}, options?: FixtureOptions): Worker {
  const [worker] = useResources<[Worker]>(
    ['the worker'],
    () => [
      (async () => {
        const config = workerConfig(db, sim, env);
        const w = createWorker({ pool: db.pool, config, logger: createSilentLogger(), now: simulatorClock(sim) });
        // A worker that failed to start may have started its endpoint: never recorded as
        // opened, it is stopped here.
        await w.start().catch(async (err: unknown) => {
          await w.stop();
          throw err;
        });
        return w;
      })(),
    ],
    [(w) => w.stop()],
    options,
  );
  return worker;
}
