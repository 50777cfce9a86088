/** The same server, another database: tests create and drop their own databases beside it. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** The URL to issue CREATE/DROP DATABASE from: the given server's `postgres` database. */
export function adminUrlFor(url: string): string {
  return withDatabase(url, 'postgres');
}
