import type { LoadRow } from '../../src/db/load/load-row.js';
import { quoteIdent, type TableMeta } from '../../src/db/load/table-meta.js';

/**
 * The COPY baseline's encoding: PostgreSQL's text format (tab-separated, `\N` for NULL,
 * backslash escapes), built from the same table definition and the same row objects the
 * loader gets, `raw` as its JSON text. The `_first_seen_at`/`_synced_at` columns take their
 * defaults, as they do for the loader.
 */

const SPECIAL = /[\\\t\n\r]/;
const SPECIAL_ALL = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function field(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  const text = typeof value === 'string' ? value : String(value);
  return SPECIAL.test(text) ? text.replace(SPECIAL_ALL, (c) => ESCAPES[c] ?? c) : text;
}

/** The columns the COPY names: keys, content, raw, then the run id. */
export function copyColumns(meta: TableMeta): string[] {
  return [...meta.keyColumns, ...meta.contentColumns, 'raw', '_run_id'];
}

export function copyStatement(meta: TableMeta, qualifiedName = meta.qualifiedName): string {
  return `COPY ${qualifiedName} (${copyColumns(meta).map(quoteIdent).join(', ')}) FROM STDIN`;
}

/** The rows as COPY text, `rowsPerChunk` rows to a buffer, produced lazily. */
export function* copyChunks(meta: TableMeta, rows: readonly LoadRow[], runId: number, rowsPerChunk = 2000): Generator<Buffer> {
  const columns = [...meta.keyColumns, ...meta.contentColumns];
  const runIdText = String(runId);
  for (let start = 0; start < rows.length; start += rowsPerChunk) {
    let text = '';
    const end = Math.min(rows.length, start + rowsPerChunk);
    for (let i = start; i < end; i++) {
      const row = rows[i] as LoadRow;
      for (const c of columns) text += `${field(row[c])}\t`;
      text += `${field(JSON.stringify(row.raw))}\t${runIdText}\n`;
    }
    yield Buffer.from(text, 'utf8');
  }
}
