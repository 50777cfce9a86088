/**
 * Where JSON.parse stopped in `text`, as a person finds it in an editor: `line 3, column 20`,
 * both from 1. Node 20 says `... in JSON at position N` (N counts UTF-16 code units from 0; Node
 * 22 adds `(line L column C)` after it) or, for a text cut short, `Unexpected end of JSON input`;
 * null when the message names no place.
 */
export function jsonErrorPlace(text: string, message: string): { line: number; column: number; problem: string } | null {
  const at = /^(.*?)(?: in JSON)? at position (\d+)/.exec(message);
  const ended = /^Unexpected end of JSON input/.test(message);
  if (!at && !ended) return null;
  const position = at ? Math.min(Number(at[2]), text.length) : text.length;
  const before = text.slice(0, position);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: position - lineStart + 1, problem: at ? at[1]! : 'the text ends too soon' };
}

/** The same as one phrase for a one-line error, `line 3, column 20: Unexpected token }`; null when the message names no place. */
export function jsonErrorPhrase(text: string, message: string): string | null {
  const place = jsonErrorPlace(text, message);
  return place && `line ${place.line}, column ${place.column}: ${place.problem}`;
}
