import { describe, expect, it } from 'vitest';

import { DEFAULT_SOURCE } from '../../src/db/schema/columns.js';
import { recordScopeSuccess } from '../../src/sync/sql/sync-state.js';
import { useDatabase, usePoolClient } from '../helpers/fixture.js';

const scope = (runId: number, params: string) => ({ source: DEFAULT_SOURCE, endpoint: 'results', params, responseHash: `h${runId}`, itemCount: 3, runId });

describe('a scope\'s first load', () => {
  const db = useDatabase('postgres', { foreignKeys: false });
  const a = usePoolClient(db);
  const b = usePoolClient(db);

  it('is told by recordScopeSuccess: true only while the scope has no pitwall.sync_state row', async () => {
    expect(await recordScopeSuccess(a, scope(1, 'EventId=1'))).toBe(true);
    expect(await recordScopeSuccess(a, scope(2, 'EventId=1'))).toBe(false);
    // A scope whose last attempt failed keeps its row, and the rows it loaded before.
    await a.query(`UPDATE pitwall.sync_state SET status = 'error', response_hash = NULL WHERE params = 'EventId=1'`);
    expect(await recordScopeSuccess(a, scope(3, 'EventId=1'))).toBe(false);
  });

  it('is one load\'s alone when two load the same new scope at once: the second waits, then is no first load', async () => {
    await a.query('BEGIN');
    await b.query('BEGIN');
    try {
      expect(await recordScopeSuccess(a, scope(4, 'EventId=2'))).toBe(true);
      let settled = false;
      const second = recordScopeSuccess(b, scope(5, 'EventId=2')).finally(() => (settled = true));
      // Blocked on the row the first has inserted and not committed.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false);
      await a.query('COMMIT');
      expect(await second).toBe(false);
      await b.query('COMMIT');
    } finally {
      await a.query('ROLLBACK').catch(() => undefined);
      await b.query('ROLLBACK').catch(() => undefined);
    }
    const { rows } = await a.query(`SELECT last_run_id FROM pitwall.sync_state WHERE params = 'EventId=2'`);
    expect(rows).toEqual([{ last_run_id: '5' }]);
  });
});
