import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';

import { ROOT } from './child.js';

const PITWALL_BIN = `${ROOT}bin/pitwall.js`;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Milliseconds since the soak started. */
  atMs: number;
}

/** A `pitwall <command>` child of the soak, its output kept in a log file for a post-mortem. */
export interface PitwallProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  /** Settles when the process has exited, however it ended. */
  exited: Promise<Exit>;
  /** The exit, once there is one: read by the report to say when a process left by itself. */
  exit: Exit | null;
  /** The first output line matching `pattern`, or a rejection when the process exits first. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** SIGTERM, then waits for the exit (SIGKILL after `timeoutMs`). */
  stop(timeoutMs: number): Promise<Exit>;
}

/**
 * Starts `pitwall <args>` the way a user would start it, from bin/pitwall.js. Its stdout and
 * stderr go to `logPath` and to the waiters; `since` is the soak's start, so exits are stamped on
 * the soak's own timeline.
 */
export function startPitwall(name: string, args: string[], env: Record<string, string>, logPath: string, since: number): PitwallProcess {
  const child = spawn(process.execPath, [PITWALL_BIN, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: WriteStream = createWriteStream(logPath, { flags: 'a' });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  // Both streams: commands print to stdout and log JSON lines to stderr.
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => {
      log.write(`${line}\n`);
      lines.push(line);
      for (const wake of waiters) wake();
    });
  }
  const proc: PitwallProcess = {
    name,
    pid: child.pid!,
    child,
    exit: null,
    exited: new Promise<Exit>((resolve) => {
      child.once('close', (code, signal) => {
        proc.exit = { code, signal, atMs: Math.round(performance.now() - since) };
        log.end();
        for (const wake of waiters) wake();
        resolve(proc.exit);
      });
    }),
    waitForLine: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => finish(new Error(`${name}: no line matching ${pattern} within ${timeoutMs} ms (log: ${logPath})`)), timeoutMs);
        const check = () => {
          for (const line of lines) {
            const m = pattern.exec(line);
            if (m) return finish(null, m);
          }
          if (proc.exit) finish(new Error(`${name} exited (code ${proc.exit.code}, signal ${proc.exit.signal}) before printing ${pattern} (log: ${logPath})`));
        };
        const finish = (err: Error | null, m?: RegExpExecArray) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (err) reject(err);
          else resolve(m!);
        };
        waiters.add(check);
        check();
      }),
    stop: async (timeoutMs) => {
      if (proc.exit) return proc.exit;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const exit = await proc.exited;
      clearTimeout(timer);
      return exit;
    },
  };
  return proc;
}
