import { describe, expect, it } from 'vitest';

import { runCli } from '../helpers/cli.js';

describe('a command that needs the API key, run without one', () => {
  it('says in one line what the key is and what runs without it, exit 2', async () => {
    // The database URL points nowhere: the key is checked before anything is opened.
    const r = await runCli(['sync'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/never' });
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^pitwall: MRP_API_KEY: required, not set: /)]);
    expect(r.stderr).toContain('MyRacePass API key');
    expect(r.stderr).toContain('`npm run demo`');
    expect(r.stderr).toContain('`pitwall simulate`');
  });
});
