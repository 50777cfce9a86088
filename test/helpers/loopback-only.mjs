// Loaded with `node --import` (through NODE_OPTIONS) into the processes a test starts: a TCP
// connection to anything but 127.0.0.1, ::1 or localhost is refused before it is made, and its
// host is appended to the file PITWALL_TEST_LOOPBACK_LOG names. Unix sockets pass. Node's fetch
// (undici), pg and tls all connect through net.Socket.prototype.connect.
import fs from 'node:fs';
import net from 'node:net';

const ALLOWED = new Set(['127.0.0.1', '::1', 'localhost', '::ffff:127.0.0.1']);
const log = process.env.PITWALL_TEST_LOOPBACK_LOG;
const connect = net.Socket.prototype.connect;

/** The host of a connect() call, or null for a Unix socket. */
function hostOf(args) {
  // net.connect passes its normalised arguments as one array.
  const list = Array.isArray(args[0]) ? args[0] : args;
  const [first, second] = list;
  if (first !== null && typeof first === 'object') return first.path !== undefined ? null : (first.host ?? 'localhost');
  if (typeof first === 'string' && !/^\d+$/.test(first)) return null;
  return typeof second === 'string' ? second : 'localhost';
}

net.Socket.prototype.connect = function (...args) {
  const host = hostOf(args);
  if (host === null || ALLOWED.has(host.replace(/^\[|\]$/g, ''))) return connect.apply(this, args);
  if (log) fs.appendFileSync(log, `${process.pid} ${host}\n`);
  process.nextTick(() => this.destroy(new Error(`loopback-only: a connection to ${host} was refused`)));
  return this;
};
