import { CONFIG_VARIABLES, type ConfigVariable } from './config.js';

/** A table cell: pipes escaped, so a description may hold one. */
const cell = (text: string): string => text.replaceAll('|', '\\|');

function flagCell(v: ConfigVariable): string {
  return v.flag ? `\`${v.flag}\`` : '(none: a secret never goes in argv, which other users can see)';
}

function defaultCell(v: ConfigVariable): string {
  if (v.default !== undefined) return `\`${v.default}\``;
  return v.whenMissing ? 'unset (required where it is used)' : 'unset';
}

/**
 * Every setting as docs/configuration.md shows it, from the same declarations `loadConfig` parses
 * and `--help` prints, so the page cannot drift from the code (test/analytics/docs.test.ts).
 */
export function configurationTable(): string {
  const rows = CONFIG_VARIABLES.map((v) => `| \`${v.env}\` | ${flagCell(v)} | ${defaultCell(v)} | ${cell(v.description)} |`);
  return ['| Variable | Flag | Default | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}
