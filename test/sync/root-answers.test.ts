import { describe, expect, it } from 'vitest';

import { endpoint } from '../../src/sync/endpoints.js';
import { RootAnswers } from '../../src/sync/root-answers.js';

/**
 * Warnings about roots that may share the run's one cause wait for the outcome: a refused key or
 * an unreachable upstream is said once, by the run; any other outcome says each of them.
 */

function rootsOf() {
  const years = endpoint('schedule_years');
  const roots = new RootAnswers();
  roots.addRoots([{ endpoint: years, params: {} }]);
  return { years, roots };
}

describe('RootAnswers.hold', () => {
  it('holds a refused or unreached root, and drops its warning when the run ends on the common cause', () => {
    const { years, roots } = rootsOf();
    const said: string[] = [];
    expect(roots.hold(years, '', { kind: 'refused' }, () => said.push('refused'))).toBe(true);
    expect(roots.hold(years, '', { kind: 'unreached', cause: 'refused' }, () => said.push('unreached'))).toBe(true);
    roots.settle(true);
    expect(said).toEqual([]);
  });

  it('says the held warnings when the run ends otherwise', () => {
    const { years, roots } = rootsOf();
    const said: string[] = [];
    roots.hold(years, '', { kind: 'refused' }, () => said.push('refused'));
    expect(said).toEqual([]);
    roots.settle(false);
    roots.settle(false);
    expect(said).toEqual(['refused']);
  });

  it('holds nothing for a scope that is no root, or a root that was answered', () => {
    const { years, roots } = rootsOf();
    expect(roots.hold(endpoint('point_classes'), 'y=2026', { kind: 'refused' }, () => undefined)).toBe(false);
    expect(roots.hold(years, '', { kind: 'accepted' }, () => undefined)).toBe(false);
  });
});
