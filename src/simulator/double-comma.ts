/**
 * The upstream's known defect: a `,,` between two array items, which makes the body invalid
 * JSON (clients collapse `,,` to `,` before parsing). The points quirk places it with the
 * envelope builder; the `doubleComma` fault uses this scanner to place it in any body.
 */

/** Offsets of every comma that separates two items of an array, anywhere in a JSON text. */
export function arraySeparatorOffsets(json: string): number[] {
  const offsets: number[] = [];
  const containers: string[] = [];
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const ch = json[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') containers.push(ch);
    else if (ch === ']' || ch === '}') containers.pop();
    else if (ch === ',' && containers.at(-1) === '[') offsets.push(i);
  }
  return offsets;
}

/**
 * Doubles one array separator, picked by `variant` in [0, 1). Returns null when the text has no
 * array with two or more items, so the caller knows the defect could not be applied.
 */
export function injectDoubleComma(json: string, variant: number): string | null {
  const offsets = arraySeparatorOffsets(json);
  const at = offsets[Math.min(offsets.length - 1, Math.floor(variant * offsets.length))];
  if (at === undefined) return null;
  return `${json.slice(0, at)},${json.slice(at)}`;
}
