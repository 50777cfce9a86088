import type pg from 'pg';

/** Polls `sql` (a single number `n`) until it reaches `atLeast`; real time, since a real process is being watched. */
export async function waitForCount(db: pg.Pool, sql: string, atLeast: number, timeoutMs = 30_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const n = Number((await db.query<{ n: number }>(sql)).rows[0]?.n ?? 0);
    if (n >= atLeast) return n;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${sql} to reach ${atLeast} (at ${n})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
