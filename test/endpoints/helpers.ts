import { level, type Field, type Level } from '../../src/endpoints/declare.js';
import { declareEndpoint, type Endpoint } from '../../src/endpoints/endpoint.js';
import type { Endpoint as SyncEndpoint } from '../../src/sync/endpoints.js';
import { extractDeclared } from '../../src/sync/extract/declared.js';

/**
 * A copy of `ep` whose level at `path` takes `column` from `source` instead: the one-line change
 * a rename is, made to a copy so the real declaration is untouched. The levels above are declared
 * again around the changed one, as a module would be.
 */
export function renamedCopy(ep: Endpoint, path: string, column: string, source: Field): SyncEndpoint {
  const redeclare = (l: Level): Level => {
    const child = l.spec.child;
    const columns = l.path === path ? { ...l.spec.columns, [column]: source } : l.spec.columns;
    if (l.path === path && !(column in (l.spec.columns ?? {}))) throw new Error(`${path} declares no column ${column}`);
    return level({ ...l.spec, ...(columns ? { columns } : {}), ...(child ? { child: { list: child.list, level: redeclare(child.level) } } : {}) });
  };
  const { name, path: urlPath, parent, request, list, envelope, scopes, live, cancelsEvents } = ep;
  // extractDeclared rather than sync/endpoints.ts's withExtractor: that module loads the registry,
  // which a vi.mock of an endpoint module (rename-end-to-end) is still building.
  const declared = declareEndpoint({
    name,
    path: urlPath,
    parent,
    ...(request ? { request } : {}),
    list: { key: list.key, level: redeclare(list.level) },
    ...(envelope ? { envelope: redeclare(envelope) } : {}),
    scopes,
    ...(live ? { live } : {}),
    ...(cancelsEvents ? { cancelsEvents } : {}),
  });
  return { ...declared, extract: extractDeclared(declared) };
}
