import { describe, expect, it } from 'vitest';

import { parseBody } from '../../src/api/body.js';
import { responseHash } from '../../src/sync/hash.js';
import { BACKENDS } from '../helpers/db.js';
import { useWarehouse } from '../helpers/fixture.js';
import { indentJson, readKept, recordingFetch, scopeName, type KeptRow } from '../helpers/served.js';
import { syncOnce } from '../helpers/sync.js';

/** The text pitwall parses a served body from: what it must keep. */
const parsedText = (served: string): string => parseBody(served).text;

const byScope = (kept: readonly KeptRow[]): Map<string, KeptRow[]> => {
  const map = new Map<string, KeptRow[]>();
  for (const k of kept) map.set(scopeName(k.endpoint, k.params), [...(map.get(scopeName(k.endpoint, k.params)) ?? []), k]);
  return map;
};

describe.each(BACKENDS)('keeping the responses (%s)', (backend) => {
  // Indented on the way (the simulator's own bodies look like JSON.stringify's), so a body
  // re-serialised from its parsed value could not pass for the one received.
  const served = () => recordingFetch(indentJson);
  const { db, sim } = useWarehouse(backend, { scale: 'tiny', seed: 5, quirks: { doubleComma: 0.5 } });

  it('keeps the body of every loaded scope as served (after the ,, repair), once, beside its hash', async () => {
    const rec = served();
    const summary = await syncOnce(db, sim, { fetch: rec.fetch });
    expect(summary.status).toBe('succeeded');
    const kept = await readKept(db.pool);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBe(summary.scopes.loaded);
    expect(byScope(kept).size).toBe(kept.length);

    const { rows: state } = await db.pool.query<{ endpoint: string; params: string; response_hash: string }>(
      `SELECT endpoint, params, response_hash FROM pitwall.sync_state WHERE status = 'ok'`,
    );
    const hashes = new Map(state.map((s) => [scopeName(s.endpoint, s.params), s.response_hash]));
    let repaired = 0;
    for (const k of kept) {
      const bodies = rec.served.get(scopeName(k.endpoint, k.params));
      expect(bodies, scopeName(k.endpoint, k.params)).toHaveLength(1);
      expect(k.text).toBe(parsedText(bodies![0]!));
      if (k.text !== bodies![0]) repaired += 1;
      else expect(k.text).toContain('\n  ');
      expect(k.bodyBytes).toBe(Buffer.byteLength(k.text));
      expect(k.runId).toBe(summary.runId);
      expect(k.responseHash).toBe(hashes.get(scopeName(k.endpoint, k.params)));
    }
    // Every body that needed the repair was kept repaired; the world serves some.
    expect(summary.repairedBodies).toBeGreaterThan(0);
    expect(repaired).toBe(summary.repairedBodies);

    const { rows } = await db.pool.query<{ stored: string; raw: string }>(
      'SELECT sum(octet_length(body))::bigint AS stored, sum(body_bytes)::bigint AS raw FROM pitwall.responses',
    );
    expect(Number(rows[0]?.stored)).toBeLessThan(Number(rows[0]?.raw) / 2);
  });

  it('writes nothing for a response identical to the one kept', async () => {
    const before = await readKept(db.pool);
    const summary = await syncOnce(db, sim, { fetch: served().fetch });
    expect(summary.scopes.loaded).toBe(0);
    expect(await readKept(db.pool)).toEqual(before);
  });

  it('replaces a changed body, keeping only the newest by default', async () => {
    const before = byScope(await readKept(db.pool));
    sim.world.advanceDays(21);
    const rec = served();
    const summary = await syncOnce(db, sim, { fetch: rec.fetch });
    expect(summary.status).toBe('succeeded');
    expect(summary.scopes.loaded).toBeGreaterThan(0);
    const kept = await readKept(db.pool);
    const after = byScope(kept);
    expect(after.size).toBe(kept.length);
    const fresh = kept.filter((k) => k.runId === summary.runId);
    expect(fresh).toHaveLength(summary.scopes.loaded);
    for (const k of fresh) {
      const name = scopeName(k.endpoint, k.params);
      expect(k.text).toBe(parsedText(rec.served.get(name)!.at(-1)!));
      // A scope loaded before has its old body gone.
      if (before.has(name)) expect(before.get(name)![0]!.text).not.toBe(k.text);
    }
    for (const [name, [k]] of after) if (k!.runId !== summary.runId) expect(before.get(name)).toEqual([k]);
  });
});

describe.each(BACKENDS)('PITWALL_KEEP_RESPONSES=2 (%s)', (backend) => {
  const { db, sim } = useWarehouse(backend, { scale: 'tiny', seed: 9 });

  it('keeps the two newest bodies of each scope, oldest deleted in the same run', async () => {
    const env = { PITWALL_KEEP_RESPONSES: '2' };
    /** Per scope, the text of each body that differed in data from the one before: each was loaded. */
    const loaded = new Map<string, { hash: string; text: string }[]>();
    for (let run = 0; run < 3; run += 1) {
      if (run > 0) sim.world.advanceDays(21);
      const rec = recordingFetch();
      expect((await syncOnce(db, sim, { env, fetch: rec.fetch })).status).toBe('succeeded');
      for (const [name, bodies] of rec.served) {
        const text = parsedText(bodies.at(-1)!);
        const hash = responseHash(JSON.parse(text) as Record<string, unknown>);
        const seq = loaded.get(name) ?? [];
        if (seq.at(-1)?.hash !== hash) loaded.set(name, [...seq, { hash, text }]);
      }
    }
    const kept = byScope(await readKept(db.pool));
    expect([...kept.keys()].sort()).toEqual([...loaded.keys()].sort());
    for (const [name, seq] of loaded) {
      expect({ name, kept: kept.get(name)!.map((k) => k.text) }).toEqual({ name, kept: seq.slice(-2).map((s) => s.text) });
    }
    // The setting mattered: some scope changed twice or more and kept two bodies.
    expect([...loaded.values()].some((seq) => seq.length > 2)).toBe(true);
  });
});

describe.each(BACKENDS)('a body quoting the API key (%s)', (backend) => {
  const { db, sim } = useWarehouse(backend, { scale: 'tiny', seed: 5 });

  it('is kept with the key redacted', async () => {
    // An upstream that echoes the request URL into a field of every body.
    const echo = (text: string) => text.replace('{', `{"RequestUrl":"/v2/x?key=${encodeURIComponent(sim.key)}&k2=${sim.key}",`);
    const summary = await syncOnce(db, sim, { fetch: recordingFetch(echo).fetch });
    expect(summary.status).toBe('succeeded');
    const kept = await readKept(db.pool);
    expect(kept.length).toBe(summary.scopes.loaded);
    for (const k of kept) {
      expect(k.text).not.toContain(sim.key);
      expect(k.text).toContain('"RequestUrl":"/v2/x?key=[redacted]&k2=[redacted]"');
    }
  });
});

describe.each(BACKENDS)('a scope whose load fails (%s)', (backend) => {
  const { db, sim } = useWarehouse(backend, { scale: 'tiny', seed: 5 });

  it('keeps no body: the body commits or rolls back with its rows', async () => {
    // The database refuses one event's lineups, as it would a value it cannot store. The event is
    // chosen up front: which events are loaded by the time lineups arrive depends on timing.
    const rec = recordingFetch();
    const eventId = Math.min(...(sim.world.truth().lineups as Array<{ event_id: number }>).map((l) => l.event_id));
    await db.pool.query(`
      CREATE FUNCTION refuse_one_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.event_id = ${Number(eventId)} THEN
          RAISE EXCEPTION 'refused by the test' USING ERRCODE = '22000';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse BEFORE INSERT ON mrp.lineups FOR EACH ROW EXECUTE FUNCTION refuse_one_event();`);
    const summary = await syncOnce(db, sim, { fetch: rec.fetch });
    expect(summary.scopes.failed).toBe(1);
    const { rows: failed } = await db.pool.query<{ endpoint: string; params: string }>(
      `SELECT endpoint, params FROM pitwall.sync_state WHERE status = 'error'`,
    );
    expect(failed).toHaveLength(1);
    const kept = byScope(await readKept(db.pool));
    expect(kept.has(scopeName(failed[0]!.endpoint, failed[0]!.params))).toBe(false);
    expect(kept.size).toBe(summary.scopes.loaded);
    expect(rec.served.has(scopeName(failed[0]!.endpoint, failed[0]!.params))).toBe(true);
  });
});
