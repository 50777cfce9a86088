import type pg from 'pg';

import { COOKBOOK } from '../analytics/cookbook.js';
import { loadConfig } from '../config.js';
import { sqlstateOf } from '../db/errors.js';
import { openWarehouse } from '../db/open-warehouse.js';

import { CONFIG_FLAG_OPTIONS, EXIT, HELP, UsageError, configFlags, makeLogger, parse, type CommandContext } from './context.js';
import { formatResult, typesFor, type SqlFormat } from './sql-output.js';

/** The SQL to run: the argument, or a cookbook recipe by id. */
function statementOf(query: string | undefined, recipeId: string | undefined, params: readonly string[]): string {
  if (recipeId === undefined) {
    if (!query) throw new UsageError('usage: pitwall sql "<query>" [--param value ...] [--csv | --json], or --recipe <id>');
    return query;
  }
  if (query) throw new UsageError('give either a query or --recipe, not both');
  const recipe = COOKBOOK.find((r) => r.id === recipeId);
  if (!recipe) throw new UsageError(`no recipe "${recipeId}"; the recipes: ${COOKBOOK.map((r) => r.id).join(', ')}`);
  const wanted = recipe.params ?? [];
  if (params.length !== wanted.length) {
    throw new UsageError(`recipe ${recipe.id} takes ${wanted.length} --param: ${wanted.map((p) => p.name).join(', ') || 'none'}`);
  }
  return recipe.sql;
}

/**
 * `pitwall sql "<query>" [--param v ...] [--csv | --json]` or `pitwall sql --recipe <id>`: runs SQL
 * against the warehouse (PostgreSQL or embedded) and prints the result as a table, CSV or JSON.
 * Several statements separated by `;` print one result each (without parameters only).
 */
export async function run(ctx: CommandContext): Promise<number> {
  const { values, positionals } = parse({
    args: ctx.args,
    allowPositionals: true,
    options: {
      ...CONFIG_FLAG_OPTIONS,
      ...HELP,
      csv: { type: 'boolean' },
      json: { type: 'boolean' },
      param: { type: 'string', multiple: true },
      recipe: { type: 'string' },
    },
  });
  if (positionals.length > 1) throw new UsageError('quote the query as one argument: pitwall sql "SELECT ..."');
  if (values.csv && values.json) throw new UsageError('choose one of --csv and --json');
  const format: SqlFormat = values.csv ? 'csv' : values.json ? 'json' : 'table';
  const params = values.param ?? [];
  const text = statementOf(positionals[0], values.recipe, params);
  const config = loadConfig(ctx.env, configFlags(values));
  const warehouse = await openWarehouse(config, makeLogger(config, ctx), { poolMax: 1, purpose: 'sql' });
  try {
    const query: pg.QueryArrayConfig = { text, rowMode: 'array', types: typesFor(format), ...(params.length ? { values: params } : {}) };
    let result: pg.QueryArrayResult | pg.QueryArrayResult[];
    try {
      result = (await warehouse.pool.query(query)) as pg.QueryArrayResult | pg.QueryArrayResult[];
    } catch (err) {
      // The server's complaint about the SQL is the whole answer, as psql prints it; a stack
      // trace into pitwall would only hide it.
      const sqlstate = sqlstateOf(err);
      if (sqlstate === undefined || !ctx.err) throw err;
      ctx.err(`ERROR:  ${(err as Error).message} (SQLSTATE ${sqlstate})\n`);
      return EXIT.failed;
    }
    for (const r of Array.isArray(result) ? result : [result]) ctx.out(formatResult(r, format));
    return EXIT.ok;
  } finally {
    await warehouse.close();
  }
}
