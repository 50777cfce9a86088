/**
 * The endpoints as the sync reads them. Each is declared in its own module under src/endpoints/;
 * this module re-exports the registry for the walk, the jobs and the loader.
 */
export { DIMENSION_TABLES, type Endpoint, type Params } from '../endpoints/endpoint.js';
export type { EndpointName } from '../endpoints/types.js';
export { childrenOf, endpoint, ENDPOINTS, LOAD_ORDER, ROOTS } from '../endpoints/registry.js';
