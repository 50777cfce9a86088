/**
 * The base of pitwall's own errors, and the exit codes they end a command with. A leaf: it
 * imports nothing, so any layer may build its errors on it without an import cycle.
 */

/** Exit codes of every command; EXIT_MEANINGS says what each means. */
export const EXIT = { ok: 0, failed: 1, usage: 2, skipped: 3, keyRefused: 4, upstreamUnreachable: 5, interrupted: 130 } as const;

export type ExitStatus = (typeof EXIT)[keyof typeof EXIT];

/**
 * What each exit code means, the one place it is said: `pitwall --help` prints the summaries and
 * docs/commands.md the table (src/exit-codes-doc.ts), which docs/configuration.md links to.
 */
export const EXIT_MEANINGS: Record<ExitStatus, { summary: string; detail: string }> = {
  0: {
    summary: 'success',
    detail: 'Success; also `worker`, `serve-sql` and `simulate` stopped by a first SIGTERM or SIGINT, their work finished.',
  },
  1: {
    summary: 'the run or command failed, or the warehouse could not be opened',
    detail:
      'The run or command failed: a run with any failed or invalid scope (its committed work stays, and the next run retries what is missing), a SQL error of `sql` (printed as `ERROR: ... (SQLSTATE xxxxx)`), a sample `probe` could not take. Or the warehouse could not be opened (`WarehouseUnavailableError`: one line naming the URL with its password masked or the embedded directory, the cause and what to do, e.g. `createdb NAME`; the stack at `--log-level debug`), upgraded (`WarehouseUpgradeError`, the same way), or stayed locked by another pitwall process (`WarehouseBusyError`).',
  },
  2: {
    summary: 'bad usage or configuration: a flag or setting whose value cannot be used',
    detail:
      'Bad usage or configuration, in one line naming the flag or variable: an unknown command or flag, a malformed value, or a value that cannot be used: a port in use (`PITWALL_HTTP_PORT`, `PITWALL_SQL_PORT`, `simulate --port`), a `PITWALL_DATA_DIR` pitwall cannot write, for `worker`, `sync` and `rebuild` a `DATABASE_URL` or `PITWALL_LOCK_DATABASE_URL` they cannot work through, such as a transaction-pooling PgBouncer (`PoolingModeError`, [poolers](warehouse.md#poolers)); a role `grant-readonly` refuses; a source `retire-source` refuses as still configured.',
  },
  3: {
    summary: "skipped: another process holds the job's lock",
    detail: "Skipped: another process holds the job's lock (`sync`), or a run of the source is going (`retire-source`).",
  },
  4: {
    summary: 'the upstream refused the key (MRP_API_KEY is likely wrong)',
    detail: 'The upstream refused every root request of a `sync` or `probe`: `MRP_API_KEY` (or a source\'s key) is likely wrong, said in one line.',
  },
  5: {
    summary: 'no root request got any answer (MRP_API_BASE_URL unreachable: refused, DNS, TLS, timeout)',
    detail:
      'No root request of a `sync` or `probe` got any HTTP answer: the upstream at `MRP_API_BASE_URL` could not be reached (one line naming the host and the cause: connection refused, DNS, TLS or timeout).',
  },
  130: {
    summary: 'interrupted by a signal',
    detail: 'Interrupted by a signal: `sync`, `demo` and `upgrade-warehouse` stopped by a first SIGTERM or SIGINT before their end; any command at a second one.',
  },
};

/**
 * An error pitwall throws on purpose. The CLI reads these fields instead of asking which class
 * an error is, so a new error decides how it ends a command where it is declared:
 * - `code`: a stable kebab-case name (`usage`, `config`, `warehouse-unavailable`...), for logs
 *   and scripts. Never upper case, so it cannot be mistaken for a SQLSTATE or a socket's code.
 * - `exitStatus`: the process's exit code when the error ends a command.
 * - `expected`: the message names the cause and what to do, so it is printed alone (its stack
 *   and `cause` only at --log-level debug). Otherwise the error is a bug or an unforeseen
 *   failure, and its stack is printed.
 * The original failure goes in `cause` (the ES2022 `new X(message, { cause })`).
 */
export abstract class PitwallError extends Error {
  abstract readonly code: string;
  abstract readonly exitStatus: ExitStatus;
  abstract readonly expected: boolean;
}
