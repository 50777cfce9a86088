/**
 * `node bin/run-ts.js test/jdbc/check-imported-keys.ts [path/to/postgresql.jar]` (.ci/run): makes a
 * new embedded warehouse (migrated, its keys reconciled, as a first start does), logs in as the
 * read-only role `pitwall serve-sql` gives BI tools, and has ImportedKeys.java ask the PostgreSQL
 * JDBC driver itself for every table's imported keys, against the rows relationships.ts says it
 * must give (test/helpers/imported-keys.ts, the same list the vitest suite checks its copy of
 * pgjdbc's query with). Exits with the Java program's status; removes the warehouse after.
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { NOT_ENFORCED_SINCE } from '../../src/analytics/relationships.js';
import { loadConfig } from '../../src/config.js';
import { serverVersionNum } from '../../src/db/catalog-keys.js';
import { openWarehouse } from '../../src/db/open-warehouse.js';
import { ensureReaderRole } from '../../src/embedded/reader-role.js';
import { createSilentLogger } from '../../src/log.js';
import { expectedImportedKeys } from '../helpers/imported-keys.js';
import { warehouseTempDir } from '../helpers/temp-dir.js';

const jar = process.argv[2] ?? '/usr/share/java/postgresql.jar';
const dir = warehouseTempDir('pitwall-jdbc-check');
const warehouse = await openWarehouse(loadConfig({ PITWALL_DATA_DIR: dir }), createSilentLogger(), { purpose: 'jdbc check', poolMax: 2 });
try {
  const version = await serverVersionNum(warehouse.pool);
  if (version < NOT_ENFORCED_SINCE) throw new Error(`the embedded warehouse runs server_version_num ${version}: it should run PostgreSQL 18 or later`);
  const expected = join(dir, 'expected-imported-keys.json');
  const rows = expectedImportedKeys(version).map((k) => [k.pktable_schem, k.pktable_name, k.pkcolumn_name, k.fktable_schem, k.fktable_name, k.fkcolumn_name, k.key_seq, k.fk_name, k.deferrability]);
  writeFileSync(expected, JSON.stringify(rows));
  const { role, passwordFile } = await ensureReaderRole(warehouse.pool, dir);
  const url = `jdbc:postgresql://127.0.0.1:${warehouse.server!.port}/postgres?sslmode=disable`;
  const program = fileURLToPath(new URL('ImportedKeys.java', import.meta.url));
  const java = spawn('java', ['-cp', jar, program, url, role, passwordFile, expected], { stdio: 'inherit' });
  const status = await new Promise<number>((resolve, reject) => {
    java.on('error', reject);
    java.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
  process.exitCode = status;
} finally {
  await warehouse.close();
  rmSync(dir, { recursive: true, force: true });
}
