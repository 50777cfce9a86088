/**
 * The embedded server could not be created, reached or started. The message is complete (what
 * failed, why, the server log's last lines, what to do), so the CLI prints it without a stack.
 */
export class EmbeddedServerError extends Error {
  override readonly name = 'EmbeddedServerError';

  constructor(message: string) {
    super(message);
    this.stack = `${this.name}: ${this.message}`;
  }
}
