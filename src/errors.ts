/**
 * The base of pitwall's own errors, and the exit codes they end a command with. A leaf: it
 * imports nothing, so any layer may build its errors on it without an import cycle.
 */

/** Exit codes of every command; docs/commands.md and `pitwall --help` list them. */
export const EXIT = { ok: 0, failed: 1, usage: 2, skipped: 3, keyRefused: 4, upstreamUnreachable: 5, interrupted: 130 } as const;

export type ExitStatus = (typeof EXIT)[keyof typeof EXIT];

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
