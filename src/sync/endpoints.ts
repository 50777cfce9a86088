/**
 * The endpoints as the sync reads them: each declaration (src/endpoints/, data only) with the
 * extractor that runs it attached, for the walk, the jobs and the loader.
 */
import type { Endpoint as Declaration } from '../endpoints/endpoint.js';
import { ENDPOINTS as DECLARED, endpointTree } from '../endpoints/registry.js';

import { extractDeclared } from './extract/declared.js';
import type { Extract } from './extract/types.js';

export { DIMENSION_TABLES, type Params } from '../endpoints/endpoint.js';
export { LOAD_ORDER } from '../endpoints/registry.js';
export type { EndpointName } from '../endpoints/types.js';

/** A declared endpoint and the function turning one of its responses into rows. */
export interface Endpoint extends Declaration {
  readonly extract: Extract;
}

/** `declaration` with its extractor: what every endpoint of the registry is here, and what a test's redeclared copy becomes. */
export function withExtractor(declaration: Declaration): Endpoint {
  return { ...declaration, extract: extractDeclared(declaration) };
}

/** Every endpoint, parents before their children (the registry's order). */
export const ENDPOINTS: readonly Endpoint[] = DECLARED.map(withExtractor);

const tree = endpointTree(ENDPOINTS);
export const { endpoint, childrenOf } = tree;
export const ROOTS: readonly Endpoint[] = tree.roots;
