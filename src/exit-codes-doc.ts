import { EXIT_MEANINGS, type ExitStatus } from './errors.js';

const codes = (): ExitStatus[] => (Object.keys(EXIT_MEANINGS).map(Number) as ExitStatus[]).sort((a, b) => a - b);

/** The exit codes as docs/commands.md shows them (a generated section; test/analytics/docs.test.ts checks it). */
export function exitCodesTable(): string {
  const rows = codes().map((code) => `| \`${code}\` | ${EXIT_MEANINGS[code].detail.replaceAll('|', '\\|')} |`);
  return ['| Exit code | Meaning |', '|---|---|', ...rows].join('\n');
}

/** The exit codes as `pitwall --help` lists them: one line each. */
export function exitCodesHelp(): string {
  return codes()
    .map((code) => `  ${String(code).padEnd(4)} ${EXIT_MEANINGS[code].summary}`)
    .join('\n');
}
