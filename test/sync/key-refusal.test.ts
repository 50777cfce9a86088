import { describe, expect, it } from 'vitest';

import { KEY_REFUSED_MESSAGE } from '../../src/sync/key-refusal.js';
import { useSimulator, useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';

/**
 * A wrong API key: the upstream refuses every root request. The run says the key is the likely
 * cause, instead of counting refused scopes; a run where only some roots are refused does not.
 */

const { db, sim } = useWarehouse('postgres', { scale: 'tiny', seed: 5 });
const httpSim = useSimulator({ scale: 'tiny', seed: 5, invalidRequest: 'http-error' });

const WRONG_KEY = 'not-the-simulator-key';

describe('a run whose every root request is refused', () => {
  it.each([
    ['RequestValid 0', () => sim],
    ['HTTP 401', () => httpSim],
  ])('names MRP_API_KEY as the likely cause when the upstream answers %s', async (_how, upstream) => {
    const summary = await syncOnce(db, upstream(), { env: { MRP_API_KEY: WRONG_KEY } });
    expect(summary.status).toBe('failed');
    expect(summary.keyRefused).toBe(true);
    expect(summary.error).toBe(KEY_REFUSED_MESSAGE);
    expect(summary.error).toContain('MRP_API_KEY');
    expect(summary.scopes.loaded + summary.scopes.unchanged).toBe(0);
    const run = await db.pool.query<{ error: string }>('SELECT error FROM pitwall.sync_runs WHERE run_id = $1', [summary.runId]);
    expect(run.rows[0]?.error).toBe(KEY_REFUSED_MESSAGE);
    expect(JSON.stringify(run.rows)).not.toContain(WRONG_KEY);
  });

  it('is not blamed on the key when only some roots are refused', async () => {
    // The right key, except on one root: its request goes out with a wrong one.
    const oneRootRefused: typeof fetch = (input, init) => {
      const url = new URL(String(input));
      if (url.pathname === '/v2/points/years/') url.searchParams.set('key', WRONG_KEY);
      return fetch(url, init);
    };
    const summary = await syncOnce(db, sim, { fetch: oneRootRefused });
    expect(summary.scopes.invalid).toBeGreaterThan(0);
    expect(summary.scopes.loaded).toBeGreaterThan(0);
    expect(summary.status).toBe('failed');
    expect(summary.keyRefused).toBeUndefined();
    expect(summary.error).toMatch(/answered RequestValid 0/);
  });

  it('is not blamed on the key when nothing loaded but the other roots failed for other reasons', async () => {
    // One root refused; the others answered 404 (a path the upstream does not serve).
    const mixed: typeof fetch = (input, init) => {
      const url = new URL(String(input));
      if (url.pathname === '/v2/points/years/') url.searchParams.set('key', WRONG_KEY);
      else url.pathname = `${url.pathname}gone/`;
      return fetch(url, init);
    };
    const summary = await syncOnce(db, sim, { fetch: mixed });
    expect(summary.scopes).toMatchObject({ loaded: 0, unchanged: 0, invalid: 1 });
    expect(summary.scopes.failed).toBeGreaterThan(0);
    expect(summary.keyRefused).toBeUndefined();
  });

  it('does not flag a run that succeeds', async () => {
    const summary = await syncOnce(db, sim);
    expect(summary.status).toBe('succeeded');
    expect(summary.keyRefused).toBeUndefined();
  });
});
