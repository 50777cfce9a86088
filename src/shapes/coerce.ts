import { z } from 'zod';

/**
 * The coercions a `PITWALL_SHAPES` file may apply to a received value before its declared type
 * parses it: a small set, each turning a string into the form the declared type takes. A value
 * a coercion does not fit (not a string, no such prefix, no match, an impossible date) passes
 * unchanged, so the declared type still records it as a field error rather than a guess.
 */

const MAX_PATTERN = 200;

/** A date format's tokens; anything else in a format is a literal. Longest first, so `YYYY` wins over `YY`. */
const TOKENS = ['YYYY', 'MM', 'M', 'DD', 'D', 'HH', 'H', 'hh', 'h', 'mm', 'ss', 'A'] as const;
type Token = (typeof TOKENS)[number];
const TOKEN_PATTERN: Record<Token, string> = {
  YYYY: '(\\d{4})',
  MM: '(\\d{2})',
  M: '(\\d{1,2})',
  DD: '(\\d{2})',
  D: '(\\d{1,2})',
  HH: '(\\d{2})',
  H: '(\\d{1,2})',
  hh: '(\\d{2})',
  h: '(\\d{1,2})',
  mm: '(\\d{2})',
  ss: '(\\d{2})',
  A: '([AaPp][Mm])',
};

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A date format as a regular expression and the token each group captures; null when it names no year, month and day. */
export function compileDateFormat(format: string): { re: RegExp; tokens: Token[] } | null {
  let source = '';
  const tokens: Token[] = [];
  for (let i = 0; i < format.length; ) {
    const token = TOKENS.find((t) => format.startsWith(t, i));
    if (token) {
      source += TOKEN_PATTERN[token];
      tokens.push(token);
      i += token.length;
    } else {
      source += escapeRegExp(format[i]!);
      i += 1;
    }
  }
  const has = (...ts: Token[]) => ts.some((t) => tokens.includes(t));
  if (!has('YYYY') || !has('M', 'MM') || !has('D', 'DD')) return null;
  if (new Set(tokens).size !== tokens.length) return null;
  if (has('h', 'hh') !== has('A')) return null;
  return { re: new RegExp(`^\\s*${source}\\s*$`), tokens };
}

/** `text` read with a compiled format, as the US date-time the declared type takes; null when it does not fit or is impossible. */
function parseDate(compiled: { re: RegExp; tokens: Token[] }, text: string): string | null {
  const m = compiled.re.exec(text);
  if (!m) return null;
  const v: Partial<Record<Token, string>> = {};
  compiled.tokens.forEach((t, i) => (v[t] = m[i + 1]));
  const year = Number(v.YYYY);
  const month = Number(v.MM ?? v.M);
  const day = Number(v.DD ?? v.D);
  let hour = Number(v.HH ?? v.H ?? v.hh ?? v.h ?? 0);
  if (v.A !== undefined) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (v.A.toLowerCase() === 'pm' ? 12 : 0);
  }
  const minute = Number(v.mm ?? 0);
  const second = Number(v.ss ?? 0);
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const p2 = (n: number) => String(n).padStart(2, '0');
  return `${month}/${day}/${year} ${p2(hour)}:${p2(minute)}:${p2(second)}`;
}

const nonEmpty = z.string().min(1).max(MAX_PATTERN);

/** One coercion as the file writes it. */
export const coercionSchema = z.union([
  z.strictObject({ stripPrefix: nonEmpty }),
  z.strictObject({ stripSuffix: nonEmpty }),
  z.strictObject({
    pattern: nonEmpty.superRefine((p, ctx) => {
      let re: RegExp;
      try {
        re = new RegExp(p);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'not a regular expression' });
        return;
      }
      // A group count: the empty alternative of `(?:)|` matches anything, leaving every group out.
      if (new RegExp(`${re.source}|`).exec('')!.length < 2) ctx.addIssue({ code: 'custom', message: 'needs a capture group, the number to take' });
    }),
  }),
  z.strictObject({
    booleans: z
      .strictObject({ true: z.array(nonEmpty).min(1).max(20), false: z.array(nonEmpty).min(1).max(20) })
      .refine((b) => !b.true.some((t) => b.false.some((f) => f.trim().toLowerCase() === t.trim().toLowerCase())), 'a string is listed as both true and false'),
  }),
  z.strictObject({
    dateFormat: nonEmpty.refine((f) => compileDateFormat(f) !== null, 'needs YYYY, M or MM, D or DD, each token once, and A with h or hh'),
  }),
]);

export type Coercion = z.output<typeof coercionSchema>;

const NUMBER = /^\s*-?\d+(\.\d+)?\s*$/;

/** The function a validated coercion stands for. */
function compileOne(c: Coercion): (value: unknown) => unknown {
  if ('stripPrefix' in c) return (v) => (typeof v === 'string' && v.startsWith(c.stripPrefix) ? v.slice(c.stripPrefix.length) : v);
  if ('stripSuffix' in c) return (v) => (typeof v === 'string' && v.endsWith(c.stripSuffix) ? v.slice(0, -c.stripSuffix.length) : v);
  if ('pattern' in c) {
    const re = new RegExp(c.pattern);
    return (v) => {
      if (typeof v !== 'string') return v;
      const m = re.exec(v);
      const captured = m?.slice(1).find((g) => g !== undefined);
      return captured !== undefined && NUMBER.test(captured) ? captured.trim() : v;
    };
  }
  if ('booleans' in c) {
    const norm = (s: string) => s.trim().toLowerCase();
    const yes = new Set(c.booleans.true.map(norm));
    const no = new Set(c.booleans.false.map(norm));
    return (v) => (typeof v !== 'string' ? v : yes.has(norm(v)) ? true : no.has(norm(v)) ? false : v);
  }
  const compiled = compileDateFormat(c.dateFormat)!;
  return (v) => (typeof v === 'string' ? (parseDate(compiled, v) ?? v) : v);
}

/** A field's coercions as one function, applied in the order the file lists them. */
export function compileCoercions(list: readonly Coercion[]): (value: unknown) => unknown {
  const steps = list.map(compileOne);
  return (value) => steps.reduce((v, step) => step(v), value);
}
