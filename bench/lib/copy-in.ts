import type pg from 'pg';

/**
 * `COPY ... FROM STDIN` over node-postgres' own connection, as a Submittable (the interface
 * pg-cursor and pg-query-stream use): pg-copy-streams is not a dependency, and this is the
 * whole of what the baseline needs. The data goes out in CopyData messages on the same socket
 * the loader's INSERTs use, so both sides pay the same transport.
 */

interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
  sendCopyFail(message: string): void;
}

class CopyFromStdin {
  private rowCount = 0;
  private error: Error | undefined;
  readonly done: Promise<number>;
  private settle!: { resolve: (n: number) => void; reject: (e: Error) => void };

  constructor(
    private readonly text: string,
    private readonly chunks: () => Iterable<Buffer>,
  ) {
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
  }

  submit(connection: CopyConnection): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: CopyConnection): void {
    try {
      for (const chunk of this.chunks()) connection.sendCopyFromChunk(chunk);
      connection.endCopyFrom();
    } catch (err) {
      connection.sendCopyFail(err instanceof Error ? err.message : String(err));
    }
  }

  handleCommandComplete(msg: { text?: string }): void {
    const m = /^COPY (\d+)/.exec(msg.text ?? '');
    this.rowCount = m ? Number(m[1]) : 0;
  }

  handleError(err: Error): void {
    this.error = err;
  }

  handleReadyForQuery(): void {
    if (this.error) this.settle.reject(this.error);
    else this.settle.resolve(this.rowCount);
  }

  // Messages a COPY FROM does not produce; present because the client may call them.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

/** Runs `copyText` (a `COPY ... FROM STDIN`), sending each chunk as it is produced; resolves with the row count. */
export async function copyFromStdin(client: pg.ClientBase, copyText: string, chunks: () => Iterable<Buffer>): Promise<number> {
  const copy = new CopyFromStdin(copyText, chunks);
  // The Submittable overload of query() returns the submittable itself.
  (client as unknown as { query(s: CopyFromStdin): unknown }).query(copy);
  return copy.done;
}
