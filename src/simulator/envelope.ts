/**
 * The v2 response envelope, written as text: `RequestValid`, `ItemsReturned`, the endpoint's
 * header fields, the array, `RequestCached`, `RequestCachedTicks`, in that order. Built by hand
 * rather than with one JSON.stringify because the ticks are a BigInt (written as a bare integer,
 * as the upstream does) and because the `,,` defect has to land between two array items.
 */

export interface EnvelopeParts {
  valid: boolean;
  arrayKey: string;
  items: readonly unknown[];
  header?: Record<string, unknown> | undefined;
  ticks: bigint;
  /** Write `,,` instead of `,` after the item at this index (must have a successor). */
  doubleCommaAfter?: number | undefined;
}

const ENVELOPE_FIELDS = new Set(['RequestValid', 'ItemsReturned', 'RequestCached', 'RequestCachedTicks']);

export function renderEnvelope(parts: EnvelopeParts): string {
  const fields: string[] = [
    `"RequestValid":${parts.valid ? 1 : 0}`,
    `"ItemsReturned":${parts.items.length}`,
  ];
  for (const [name, value] of Object.entries(parts.header ?? {})) {
    // The envelope's own fields are the server's to write; a header cannot override them.
    if (value === undefined || ENVELOPE_FIELDS.has(name)) continue;
    fields.push(`${JSON.stringify(name)}:${JSON.stringify(value)}`);
  }
  fields.push(`${JSON.stringify(parts.arrayKey)}:[${joinItems(parts.items, parts.doubleCommaAfter)}]`);
  fields.push('"RequestCached":0', `"RequestCachedTicks":${parts.ticks.toString()}`);
  return `{${fields.join(',')}}`;
}

function joinItems(items: readonly unknown[], doubleCommaAfter: number | undefined): string {
  let text = '';
  items.forEach((item, i) => {
    if (i > 0) text += i - 1 === doubleCommaAfter ? ',,' : ',';
    // JSON.stringify turns a top-level undefined into undefined, not text; null keeps the array valid.
    text += JSON.stringify(item) ?? 'null';
  });
  return text;
}

/** The answer to a refused request: the same envelope with `RequestValid: 0` and no items. */
export function renderInvalidEnvelope(arrayKey: string, ticks: bigint): string {
  return renderEnvelope({ valid: false, arrayKey, items: [], ticks });
}
