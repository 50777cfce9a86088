import { defineConfig } from 'drizzle-kit';

// drizzle-kit reads only the schema files; `npm run db:generate` writes SQL into migrations/.
// The URL is needed only by drizzle-kit commands that talk to a database (not by generate).
export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/db/schema/mrp.ts', './src/db/schema/pitwall.ts', './src/db/schema/analytics.ts'],
  out: './migrations',
  dbCredentials: { url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  schemaFilter: ['mrp', 'pitwall', 'analytics'],
  strict: true,
  verbose: false,
});
