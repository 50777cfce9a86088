import { ApiError, PayloadError, UpstreamDownError } from '../api/errors.js';
import { DatabaseError } from '../db/errors.js';
import { EXIT, PitwallError } from '../errors.js';

import { ListKeyError } from './bad-body.js';
import { isScopeDataError } from './scope-data-error.js';

/**
 * Where in one scope's visit a failure happened: the request and its answer's status, receiving
 * the body, decoding it, parsing it, checking it is a v2 envelope with the endpoint's list,
 * extracting rows, loading them.
 */
export type ScopeStage = 'request' | 'receive' | 'decode' | 'parse' | 'check' | 'extract' | 'load';

/** A failure of pitwall's own code while it extracted or loaded one answer: that scope's, not the run's. */
export class ScopeStageError extends PitwallError {
  override readonly name = 'ScopeStageError';
  readonly code = 'scope-stage';
  readonly exitStatus = EXIT.failed;
  readonly expected = false;

  constructor(
    readonly stage: 'extract' | 'load',
    cause: unknown,
  ) {
    super(`${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}`, { cause });
  }
}

/** A scope's failure as sync_state records it. */
export interface ScopeFailure {
  stage: ScopeStage;
  /** What went wrong, compared run to run: `too-large`, `slow-body`, `http 404`, `not-json`, `envelope`, `extract`… */
  kind: string;
  /** Runs in a row failing this way that set the scope aside (ASIDE_AFTER_RUNS); 0 = never. */
  asideAfterRuns: number;
  /** One line: the endpoint, the URL without the key, the stage and the reason. */
  message: string;
}

/**
 * Runs in a row a failure must end before its scope is set aside. A kind the same answer would
 * repeat (a body too large, a 404) is the scope's after two. The upstream's passing faults (5xx,
 * 429, a timeout, a reset, a body cut short) come and go, so they need one more: but a scope that
 * times out run after run would cost its timeouts in every run for good. A refused key (401, 403)
 * is the key's fault, not the scope's: once the key is mended, every scope must be tried at once.
 * A run that ends with the upstream down counts for none of its scopes (discountRunFailures).
 */
export const ASIDE_AFTER_RUNS = { lasting: 2, passing: 3, never: 0 } as const;

/** HTTP statuses of the upstream's passing faults: "not now". */
const PASSING_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);
const KEY_REFUSED_STATUS = new Set([401, 403]);

function httpAsideAfter(status: number): number {
  if (KEY_REFUSED_STATUS.has(status)) return ASIDE_AFTER_RUNS.never;
  return PASSING_STATUS.has(status) ? ASIDE_AFTER_RUNS.passing : ASIDE_AFTER_RUNS.lasting;
}

/** Stage and kind of an error the client threw. */
function apiStageAndKind(err: ApiError): { stage: ScopeStage; kind: string; asideAfterRuns: number } {
  const { lasting, passing } = ASIDE_AFTER_RUNS;
  switch (err.kind) {
    case 'http':
      return { stage: 'request', kind: `http ${err.status ?? '?'}`, asideAfterRuns: httpAsideAfter(err.status ?? 0) };
    case 'network':
    case 'timeout':
      return { stage: 'request', kind: err.kind, asideAfterRuns: passing };
    case 'short-body':
      return { stage: 'receive', kind: err.kind, asideAfterRuns: passing };
    case 'slow-body':
      return { stage: 'receive', kind: err.kind, asideAfterRuns: lasting };
    case 'too-large':
      return { stage: err.limit === 'decoded' ? 'decode' : 'receive', kind: err.kind, asideAfterRuns: lasting };
    case 'decode':
    case 'charset':
      return { stage: 'decode', kind: err.kind, asideAfterRuns: lasting };
    case 'body':
      return { stage: 'parse', kind: 'not-json', asideAfterRuns: lasting };
  }
}

/**
 * Whether `err`, thrown while a scope was visited, is that scope's failure (recorded on it, the
 * walk going on), or the run's: an upstream plainly down, or a database that is gone (anything
 * but bad data in one scope). Everything else that can go wrong with one answer is the scope's.
 */
export function isScopeFailure(err: unknown): boolean {
  if (err instanceof UpstreamDownError) return false;
  return !(err instanceof DatabaseError) || isScopeDataError(err);
}

/**
 * What sync_state records of a scope's failure. `stage` is where the visit was when it failed,
 * for an error that does not say so itself.
 */
export function describeScopeFailure(err: unknown, at: { endpoint: string; shownUrl: string; stage: ScopeStage }): ScopeFailure {
  const base = err instanceof Error ? err.message : String(err);
  const named = (stage: ScopeStage, kind: string, asideAfterRuns: number = ASIDE_AFTER_RUNS.lasting, reason = base): ScopeFailure => ({
    stage,
    kind,
    asideAfterRuns,
    // Errors of the client name the URL already; the others get it here.
    message: reason.includes(at.shownUrl) ? `${at.endpoint}: ${stage}: ${reason}` : `${at.endpoint}: ${stage}: ${reason} (GET ${at.shownUrl})`,
  });
  if (err instanceof ApiError) {
    const { stage, kind, asideAfterRuns } = apiStageAndKind(err);
    return named(stage, kind, asideAfterRuns);
  }
  // The client's PayloadError: JSON nested too deep (parse), or not a v2 envelope (check).
  if (err instanceof PayloadError) return err.issues === undefined ? named('parse', 'too-deep') : named('check', 'envelope');
  if (err instanceof ListKeyError) return named('check', 'list-key');
  if (err instanceof ScopeStageError) return named(err.stage, err.stage);
  if (err instanceof DatabaseError) return named('load', `load ${err.sqlstate ?? ''}`.trim());
  const reason = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return named(at.stage, at.stage, ASIDE_AFTER_RUNS.lasting, reason);
}
