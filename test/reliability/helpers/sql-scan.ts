import ts from 'typescript';

/**
 * A static check that SQL text is never built from data. It reads the source with TypeScript's
 * own parser and reports:
 *
 * - every SQL argument of a `.query(...)` or `queryWithRetry(db, ...)` call (or the `text` of a
 *   query config passed to `.query`) that is neither a literal nor a template of safe parts (a
 *   "sink" that needs a reviewed reason), and
 * - every interpolation in a template literal that reads as SQL (starts with SELECT, INSERT,
 *   ...) that is not one of the safe parts.
 *
 * Safe parts: a parameter placeholder (`$${n}`), `quoteIdent(...)` or `pg.escapeIdentifier(...)`
 * (identifiers checked or escaped), a `.qualifiedName` (quoted by tableMeta from the Drizzle
 * schema), and a `const` of the same file whose value is itself safe (a string literal, an array
 * of string literals and its `.join(...)`, or one of the above). Anything else must be a reviewed
 * exception, and the runtime canary test shows the reviewed builders keep data out.
 */

export interface Finding {
  file: string;
  line: number;
  kind: 'sink' | 'interpolation';
  /** The offending expression's source text, whitespace collapsed. */
  text: string;
}

const SQL_HEAD = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|DROP|ALTER|GRANT|REVOKE|TRUNCATE|COPY|LOCK|SET|BEGIN|VALUES)\b/i;
const IDENT_CALLS = new Set(['quoteIdent', 'escapeIdentifier']);

const compact = (s: string) => s.replace(/\s+/g, ' ').trim();

function unwrap(e: ts.Expression): ts.Expression {
  while (ts.isAsExpression(e) || ts.isParenthesizedExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
  return e;
}

export function scanSource(file: string, source: string): Finding[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.ES2022, true);
  const consts = new Map<string, ts.Expression>();
  const collect = (n: ts.Node): void => {
    if (ts.isVariableDeclarationList(n) && n.flags & ts.NodeFlags.Const) {
      for (const d of n.declarations) if (ts.isIdentifier(d.name) && d.initializer) consts.set(d.name.text, d.initializer);
    }
    ts.forEachChild(n, collect);
  };
  collect(sf);

  const safe = (raw: ts.Expression, seen = new Set<string>()): boolean => {
    const e = unwrap(raw);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e) || ts.isNumericLiteral(e)) return true;
    if (ts.isTemplateExpression(e)) return e.templateSpans.every((s, i) => placeholder(e, i) || safe(s.expression, seen));
    if (ts.isArrayLiteralExpression(e)) return e.elements.every((el) => safe(el as ts.Expression, seen));
    if (ts.isPropertyAccessExpression(e) && e.name.text === 'qualifiedName') return true;
    if (ts.isCallExpression(e)) {
      const callee = unwrap(e.expression);
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
      if (IDENT_CALLS.has(name)) return true;
      if (name === 'join' && ts.isPropertyAccessExpression(callee)) return safe(callee.expression, seen) && e.arguments.every((a) => safe(a, seen));
      return false;
    }
    if (ts.isIdentifier(e)) {
      const init = consts.get(e.text);
      if (!init || seen.has(e.text)) return false;
      seen.add(e.text);
      return safe(init, seen);
    }
    return false;
  };

  /** `$${n}`: the literal text before the span ends in `$`, so the value is a parameter number. */
  const placeholder = (t: ts.TemplateExpression, i: number): boolean => {
    const before = i === 0 ? t.head.text : t.templateSpans[i - 1]!.literal.text;
    return before.endsWith('$');
  };

  /** The SQL of a query argument: a query config's `text` (`{ name, text, values }`), else the argument itself. */
  const queryText = (arg: ts.Expression): ts.Expression => {
    const e = unwrap(arg);
    if (!ts.isObjectLiteralExpression(e)) return arg;
    const text = e.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === 'text');
    // A config whose text is not written out (spread from elsewhere) is judged whole: a sink.
    return text?.initializer ?? arg;
  };

  const findings: Finding[] = [];
  const report = (node: ts.Node, kind: Finding['kind']) =>
    findings.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, kind, text: compact(node.getText(sf)) });

  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n)) {
      const callee = unwrap(n.expression);
      const sqlArg =
        ts.isPropertyAccessExpression(callee) && callee.name.text === 'query'
          ? n.arguments[0]
          : ts.isIdentifier(callee) && callee.text === 'queryWithRetry'
            ? n.arguments[1]
            : undefined;
      const sql = sqlArg && queryText(sqlArg);
      if (sql && !safe(sql)) report(sql, 'sink');
    }
    if (ts.isTemplateExpression(n) && SQL_HEAD.test(n.head.text)) {
      n.templateSpans.forEach((s, i) => {
        if (!placeholder(n, i) && !safe(s.expression)) report(s.expression, 'interpolation');
      });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return findings;
}
