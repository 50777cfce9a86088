import { describe, expect, it } from 'vitest';

import { runProgress } from '../../src/sync/run-progress.js';

describe('runProgress', () => {
  it('estimates the time left from the pace of scopes done since the start', () => {
    // 50 of 200 scopes in 60 s: 150 more at the same pace take 180 s.
    expect(runProgress(50, 200, 60_000)).toEqual({ scopes_done: 50, scopes_total: 200, eta: 'estimated', eta_seconds: 180 });
    expect(runProgress(200, 200, 60_000).eta_seconds).toBe(0);
  });

  it('says estimating while too few scopes are done or too little time has passed', () => {
    expect(runProgress(9, 200, 60_000)).toMatchObject({ eta: 'estimating', eta_seconds: null });
    expect(runProgress(50, 200, 9_999)).toMatchObject({ eta: 'estimating', eta_seconds: null });
  });

  it('knows nothing before the walk knows a scope', () => {
    expect(runProgress(0, 0, 60_000)).toMatchObject({ eta: 'unknown', eta_seconds: null });
  });
});
