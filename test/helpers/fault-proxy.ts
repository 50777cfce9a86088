import { createConnection, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy of the tests' own, put between pitwall (or a pg client) and PostgreSQL to break the
 * network in the ways that matter to a lock holder and a pool, one connection at a time. Each
 * accepted client socket gets its own upstream socket; bytes are copied by hand (no `pipe`), so
 * that a fault can hold, drop or delay them. What each fault does, exactly:
 *
 * - `half-open`: the server's side is closed (the upstream socket is destroyed: PostgreSQL reads
 *   EOF, ends the session and frees its locks), while the client's side stays open and silent:
 *   what the client sends is read and dropped, and no byte, FIN or RST reaches it. It is a machine
 *   cut off after the server gave up on it. A later `none` does not revive it; `reset` closes it.
 * - `stall`: both sockets stay open and nothing passes either way: a network partition. Bytes are
 *   read and held (the server sees an idle session, the client an unanswered one); its kernel
 *   answers the server's TCP keepalives, so keepalives never end a stalled session. A later `none`
 *   or `latency` delivers what was held, in order, as TCP delivers after a partition heals. Past
 *   HIGH_WATER held bytes a side is no longer read, and its writes back up as over a real link.
 * - `reset`: both sockets are destroyed with an RST (`resetAndDestroy`), so the client sees
 *   ECONNRESET and the server ends the session. Nothing held is delivered.
 * - `latency`: every chunk, each way, is delivered `latencyMs` after the proxy read it, never
 *   before (a lower bound: timers may fire late), and never ahead of a chunk read before it.
 * - `none`: forward at once again. A connection already reset or half-open stays dead.
 *
 * Otherwise the proxy is transparent, ends included: a side's FIN is passed on after the bytes
 * before it, and a side closed without one (an error, an RST) closes the other side.
 */
export type FaultKind = 'half-open' | 'stall' | 'reset' | 'latency' | 'none';

export interface FaultOptions {
  /** Only the open connections for which this is true (and, with `sticky`, only such new ones). */
  which?: (c: ProxiedConnection) => boolean;
  /**
   * New connections get the fault too. Without `which`, at accept, before a byte passes (a
   * stall then makes a connect hang after the TCP handshake); with `which`, when the client's
   * startup packet has been read and `params` can be judged (the packet itself is then the first
   * thing faulted). Each call to `fault` replaces the rule: a call without `sticky` ends it.
   */
  sticky?: boolean;
  /**
   * With `sticky`: a new connection gets the fault only once the server has first said it is ready
   * for queries (startup and authentication done), right after those bytes are passed on, so the
   * client's first statement is the first thing faulted (a link that dies between the handshake
   * and the first query).
   */
  atReady?: boolean;
  /** For `latency`: the delay of every chunk, each way, in milliseconds. */
  latencyMs?: number;
}

/** One client socket and its upstream socket; live, its counters and fault change as it goes on. */
export interface ProxiedConnection {
  /** 1, 2, 3... in accept order, per proxy. */
  readonly id: number;
  /** The client socket's remote port: a pg client's `connection.stream.localPort`. */
  readonly clientPort: number;
  /** The PostgreSQL StartupMessage's parameters (user, database, application_name...); {} before it is read, or when it is not one (TLS, a cancel request). */
  readonly params: Readonly<Record<string, string>>;
  /** The fault it is under now; `none` when it forwards normally. */
  readonly fault: FaultKind;
  /** Bytes read from the client, and of those the ones delivered to the server. */
  readonly bytesFromClient: number;
  readonly bytesToServer: number;
  /** Bytes read from the server, and of those the ones delivered to the client. */
  readonly bytesFromServer: number;
  readonly bytesToClient: number;
}

export interface FaultProxy {
  /** The port it listens on, on 127.0.0.1. */
  readonly port: number;
  /** `target` (a postgres URL) with its host and port replaced by the proxy's. */
  url(target: string): string;
  /** The connections open now (either socket not yet closed), in accept order. */
  connections(): ProxiedConnection[];
  /** Bytes read from clients since the proxy started, closed connections' included. */
  bytesFromClients(): number;
  /** Applies `kind` to every open connection (or those `which` picks); see FaultOptions for new ones. */
  fault(kind: FaultKind, opts?: FaultOptions): void;
  /** While on, each new connection is destroyed with an RST as soon as it is accepted (ECONNRESET for the client). */
  refuseNew(on: boolean): void;
  /** Destroys every connection and stops listening; resolves once the server is closed. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Held bytes past which a side is no longer read (stall, latency, a slow reader): memory stays
 * bounded and the writer meets backpressure, as over a real link whose buffers are full.
 */
const HIGH_WATER = 1024 * 1024;

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
/** Any StartupMessage is longer than 8 bytes and far shorter than this; beyond it the bytes are not PostgreSQL's. */
const MAX_STARTUP = 10_000;

/** The source's FIN (pass it on with `end`), or its close without one (close the other side). */
const END = Symbol('end');
const CUT = Symbol('cut');
type Item = Buffer | typeof END | typeof CUT;

interface Rule {
  kind: FaultKind;
  latencyMs: number;
  which?: ((c: ProxiedConnection) => boolean) | undefined;
  atReady?: boolean | undefined;
}

/** A backend message's header: its type byte and its int32 length (which counts itself). */
const HEADER = 5;
const READY_FOR_QUERY = 'Z'.charCodeAt(0);

/**
 * Finds the server's first ReadyForQuery in its stream of messages, chunk by chunk: `feed` says
 * whether the chunk just read holds it.
 */
class ReadyWatch {
  private header = Buffer.alloc(0);
  private skip = 0;

  feed(chunk: Buffer): boolean {
    let seen = false;
    for (let i = 0; i < chunk.length; ) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - i);
        this.skip -= n;
        i += n;
        continue;
      }
      const take = Math.min(HEADER - this.header.length, chunk.length - i);
      this.header = Buffer.concat([this.header, chunk.subarray(i, i + take)]);
      i += take;
      if (this.header.length < HEADER) break;
      seen ||= this.header[0] === READY_FOR_QUERY;
      this.skip = this.header.readInt32BE(1) - 4;
      this.header = Buffer.alloc(0);
    }
    return seen;
  }
}

/** One direction of a connection: what was read from `from`, queued until it is due and may pass. */
class Direction {
  read = 0;
  written = 0;
  private queue: { item: Item; due: number; size: number }[] = [];
  private queued = 0;
  private lastDue = 0;
  private timer: NodeJS.Timeout | undefined;
  private awaitingDrain = false;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly conn: Connection,
  ) {}

  push(item: Item): void {
    if (this.conn.dead) return;
    // Never ahead of what came before, even when the latency has since been lowered.
    this.lastDue = Math.max(performance.now() + this.conn.latencyMs, this.lastDue);
    const size = Buffer.isBuffer(item) ? item.length : 0;
    this.queue.push({ item, due: this.lastDue, size });
    this.queued += size;
    this.pump();
  }

  pump(): void {
    clearTimeout(this.timer);
    while (this.queue.length > 0 && this.conn.fault !== 'stall' && !this.conn.dead) {
      // Rechecked against the clock rather than trusting the timer, which may fire a little early.
      const wait = this.queue[0]!.due - performance.now();
      if (wait > 0) {
        this.timer = setTimeout(() => this.pump(), Math.ceil(wait));
        break;
      }
      const { item, size } = this.queue.shift()!;
      this.queued -= size;
      this.deliver(item);
    }
    this.flow();
  }

  private deliver(item: Item): void {
    if (this.to.destroyed) return;
    if (item === END) this.to.end();
    else if (item === CUT) this.to.destroy();
    else {
      this.written += item.length;
      if (!this.to.write(item) && !this.awaitingDrain) {
        this.awaitingDrain = true;
        this.to.once('drain', () => {
          this.awaitingDrain = false;
          this.flow();
        });
      }
    }
  }

  /** Reads `from` while there is room for what it sends. */
  flow(): void {
    if (this.from.destroyed) return;
    if (this.queued > HIGH_WATER || this.awaitingDrain) this.from.pause();
    else this.from.resume();
  }

  clear(): void {
    clearTimeout(this.timer);
    this.queue = [];
    this.queued = 0;
  }
}

class Connection implements ProxiedConnection {
  fault: FaultKind = 'none';
  latencyMs = 0;
  params: Record<string, string> = {};
  readonly clientPort: number;
  private readonly toServer: Direction;
  private readonly toClient: Direction;
  /** The client's bytes before its StartupMessage is complete; undefined once it has passed. */
  private startup: Buffer | undefined = Buffer.alloc(0);
  /** A fault waiting for the server's first ReadyForQuery (FaultOptions.atReady), and the watch for it. */
  private atReady: { kind: FaultKind; latencyMs: number; watch: ReadyWatch } | undefined;

  constructor(
    readonly id: number,
    private readonly client: Socket,
    private readonly upstream: Socket,
    private readonly onStartup: (c: Connection) => void,
  ) {
    this.clientPort = client.remotePort ?? 0;
    this.toServer = new Direction(client, upstream, this);
    this.toClient = new Direction(upstream, client, this);
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      // Every error also closes the socket; 'close' below is where it is handled.
      socket.on('error', () => undefined);
    }
    client.on('data', (chunk: Buffer) => {
      this.toServer.read += chunk.length;
      if (this.startup) this.readStartup(chunk);
      else this.toServer.push(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      this.toClient.read += chunk.length;
      this.toClient.push(chunk);
      // Server bytes before the StartupMessage passed answer an SSLRequest: no message framing.
      if (this.atReady && !this.startup && this.atReady.watch.feed(chunk)) {
        const { kind, latencyMs } = this.atReady;
        this.atReady = undefined;
        this.setFault(kind, latencyMs);
      }
    });
    client.on('end', () => this.toServer.push(END));
    upstream.on('end', () => this.toClient.push(END));
    // Closed without a FIN first: an error, an RST, or destroyed here.
    client.on('close', () => {
      if (!client.readableEnded) this.toServer.push(CUT);
    });
    upstream.on('close', () => {
      if (!upstream.readableEnded) this.toClient.push(CUT);
    });
  }

  get bytesFromClient(): number {
    return this.toServer.read;
  }
  get bytesToServer(): number {
    return this.toServer.written;
  }
  get bytesFromServer(): number {
    return this.toClient.read;
  }
  get bytesToClient(): number {
    return this.toClient.written;
  }
  /** Nothing passes any more, whatever fault comes next. */
  get dead(): boolean {
    return this.fault === 'reset' || this.fault === 'half-open';
  }
  get closed(): boolean {
    return this.client.destroyed && this.upstream.destroyed;
  }

  setFault(kind: FaultKind, latencyMs: number): void {
    if (this.fault === 'reset' || (this.fault === 'half-open' && kind !== 'reset')) return;
    this.fault = kind;
    this.latencyMs = kind === 'latency' ? latencyMs : 0;
    if (kind === 'reset' || kind === 'half-open') {
      this.toServer.clear();
      this.toClient.clear();
    }
    if (kind === 'reset') {
      for (const socket of [this.client, this.upstream]) if (!socket.destroyed) socket.resetAndDestroy();
    } else if (kind === 'half-open') {
      this.upstream.destroy();
      // Read on, so the client's writes never back up into an error; push drops what is read.
      this.client.resume();
    } else {
      this.toServer.pump();
      this.toClient.pump();
    }
  }

  /** Applies `kind` once the server has first said ReadyForQuery. */
  faultAtReady(kind: FaultKind, latencyMs: number): void {
    this.atReady = { kind, latencyMs, watch: new ReadyWatch() };
  }

  destroy(): void {
    this.toServer.clear();
    this.toClient.clear();
    this.client.destroy();
    this.upstream.destroy();
  }

  /**
   * Holds the client's first bytes until its StartupMessage (int32 length, int32 protocol 3.x,
   * then key\0value\0... and a final \0) is whole, to read its parameters before any sticky rule
   * with `which` judges it. An SSLRequest or GSSENCRequest before it passes at once: the client
   * waits for the server's one-byte answer before it sends the rest.
   */
  private readStartup(chunk: Buffer): void {
    let buf = Buffer.concat([this.startup!, chunk]);
    for (;;) {
      const length = buf.length >= 8 ? buf.readInt32BE(0) : 0;
      if (buf.length < 8 || (length <= MAX_STARTUP && buf.length < length)) {
        this.startup = buf;
        return;
      }
      // Not a PostgreSQL packet (a TLS handshake after the server said 'S'): judged as it is.
      if (length < 8 || length > MAX_STARTUP) break;
      const code = buf.readInt32BE(4);
      if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) {
        if (code >>> 16 === 3) this.params = parseParams(buf.subarray(8, length));
        break;
      }
      this.toServer.push(buf.subarray(0, length));
      buf = buf.subarray(length);
    }
    // The StartupMessage, a cancel request, or bytes that are not PostgreSQL's.
    this.startup = undefined;
    this.onStartup(this);
    if (buf.length > 0) this.toServer.push(buf);
  }
}

function parseParams(body: Buffer): Record<string, string> {
  const parts = body.toString('utf8').split('\0');
  const params: Record<string, string> = {};
  for (let i = 0; i + 1 < parts.length && parts[i] !== ''; i += 2) params[parts[i]!] = parts[i + 1]!;
  return params;
}

/** An IPv6 hostname comes in brackets from URL, which net.connect does not take. */
const hostAndPort = (u: URL) => ({ host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(u.port || 5432) });

/** Starts a proxy on 127.0.0.1 (a free port) in front of `target`: a host and port, or a postgres URL. */
export async function startFaultProxy(target: { host: string; port: number } | string): Promise<FaultProxy> {
  const to = typeof target === 'string' ? hostAndPort(new URL(target)) : target;
  const open = new Map<number, Connection>();
  let closedFromClients = 0;
  let nextId = 1;
  let refusing = false;
  let rule: Rule | undefined;
  let closing: Promise<void> | undefined;

  const judgeAtStartup = (c: Connection) => {
    if (!rule || !(rule.which?.(c) ?? rule.atReady)) return;
    if (rule.atReady) c.faultAtReady(rule.kind, rule.latencyMs);
    else c.setFault(rule.kind, rule.latencyMs);
  };

  // allowHalfOpen: a FIN from one side must not make Node answer with one of its own; the other
  // side decides, through the proxy (or not, under a fault).
  const server = createServer({ allowHalfOpen: true }, (client) => {
    client.on('error', () => undefined);
    if (refusing || closing) {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection({ host: to.host, port: to.port, allowHalfOpen: true });
    const conn = new Connection(nextId++, client, upstream, judgeAtStartup);
    open.set(conn.id, conn);
    for (const socket of [client, upstream]) {
      socket.on('close', () => {
        if (!conn.closed || !open.has(conn.id)) return;
        open.delete(conn.id);
        closedFromClients += conn.bytesFromClient;
      });
    }
    if (rule && !rule.which && !rule.atReady) conn.setFault(rule.kind, rule.latencyMs);
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    port,
    url(targetUrl) {
      const u = new URL(targetUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      // pg reads a host or port in the query over the authority's: it would bypass the proxy.
      for (const key of ['host', 'port']) if (u.searchParams.has(key)) u.searchParams.delete(key);
      return u.toString();
    },
    connections: () => [...open.values()],
    bytesFromClients: () => closedFromClients + [...open.values()].reduce((n, c) => n + c.bytesFromClient, 0),
    fault(kind, opts = {}) {
      const latencyMs = opts.latencyMs ?? 0;
      if (kind === 'latency' && !(latencyMs > 0)) throw new Error('fault("latency") needs latencyMs > 0');
      for (const c of open.values()) if (!opts.which || opts.which(c)) c.setFault(kind, latencyMs);
      rule = opts.sticky ? { kind, latencyMs, which: opts.which, atReady: opts.atReady } : undefined;
    },
    refuseNew(on) {
      refusing = on;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const c of open.values()) c.destroy();
        // Resolves once every socket the server accepted has closed; an error means it was not listening.
        server.close(() => resolve());
      });
      return closing;
    },
  };
}
