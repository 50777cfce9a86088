import type pg from 'pg';

/**
 * What a read needs: a pool (each statement on whichever connection is free) or one client (every
 * statement in its transaction, as the status views' snapshot reads: src/observability/status-snapshot.ts).
 */
export type Reader = pg.Pool | pg.ClientBase;
