import { createHash } from 'node:crypto';

/** A query config for node-postgres that prepares its statement once per connection. */
export interface PreparedStatement {
  name: string;
  text: string;
}

/**
 * `text` as a named (prepared) statement. A sync runs the same few statements thousands of
 * times, one scope at a time; named, each connection parses and plans them once (PostgreSQL's
 * CPU for a first sync of the medium world: about a fifth less, docs/decisions.md). The name
 * is a digest of the text, so one text always has one name and two texts never share one:
 * node-postgres refuses a name it has prepared on a connection with another text.
 */
export function prepared(text: string): PreparedStatement {
  return { name: `pitwall_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
}
