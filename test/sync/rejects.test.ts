import { describe, expect, it } from 'vitest';

import { BACKENDS } from '../helpers/db.js';
import { useWarehouse } from '../helpers/fixture.js';
import { syncOnce } from '../helpers/sync.js';

/**
 * A transport that damages chosen responses on their way in, the way a changed or broken
 * upstream would: the simulator stays honest, the damage is in the injected fetch.
 */
function damaging(edit: (url: URL, body: Record<string, unknown>) => boolean): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const text = await res.text();
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return new Response(text, { status: res.status, headers: res.headers });
    }
    const changed = edit(url, body);
    return new Response(changed ? JSON.stringify(body) : text, { status: res.status, headers: { 'content-type': 'application/json' } });
  };
}

describe.each(BACKENDS)('an item without its key (%s)', (backend) => {
  let damagedEvents = 0;
  const { db, sim } = useWarehouse(backend, { scale: 'tiny', seed: 9 });

  it('lands in pitwall.rejects with its reason while the rest of its response loads', async () => {
    let victim: number | undefined;
    const f = damaging((url, body) => {
      if (url.pathname !== '/v2/schedules/events/' || victim !== undefined) return false;
      const events = body.ScheduleEvents as Array<Record<string, unknown>>;
      if (events.length < 2) return false;
      victim = Number(events[0]!.EventId);
      delete events[0]!.EventId;
      damagedEvents = events.length;
      return true;
    });
    const summary = await syncOnce(db, sim, { fetch: f });
    expect(victim).toBeDefined();
    const rejects = await db.pool.query(`SELECT endpoint, params, reason, payload FROM pitwall.rejects`);
    expect(rejects.rows).toHaveLength(1);
    expect(rejects.rows[0].endpoint).toBe('events');
    expect(rejects.rows[0].reason).toMatch(/EventId/);
    expect(rejects.rows[0].payload.EventName).toBeTruthy();
    expect(rejects.rows[0].params).not.toMatch(/key=/);
    expect(summary.tables.events?.rejected).toBe(1);
    const scheduleId = new URLSearchParams(rejects.rows[0].params).get('ScheduleId');
    const loaded = await db.pool.query('SELECT count(*)::int AS n FROM mrp.schedule_events WHERE schedule_id = $1', [scheduleId]);
    expect(loaded.rows[0].n).toBe(damagedEvents - 1);
  });

  it('keeps fields pitwall does not model in raw and counts them', async () => {
    const f = damaging((url, body) => {
      if (url.pathname !== '/v2/schedules/') return false;
      for (const s of body.Schedules as Array<Record<string, unknown>>) s.SanctioningBody = 'USRA';
      return true;
    });
    const summary = await syncOnce(db, sim, { fetch: f });
    // One field on every schedule: one distinct unmodelled path, however many items carry it.
    expect(summary.unknownFields).toEqual({ schedules: 1 });
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM mrp.schedules WHERE raw->>'SanctioningBody' = 'USRA'`);
    expect(rows[0].n).toBeGreaterThan(0);
  });
});
