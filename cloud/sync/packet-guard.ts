/**
 * What stands between a TCP socket and the broker: aedes' parser (mqtt-packet) buffers a packet
 * until its declared length has arrived, up to MQTT's 256 MB, and waits 30 s for a CONNECT by
 * default. Six sockets announcing 250 MB CONNECTs once took the cloud from 0.3 to 1.7 GB.
 *
 * The guard follows the packets' fixed headers as the bytes arrive: a packet's size is known
 * from its first five bytes, so one larger than allowed is refused before any of its body is
 * passed on, and the socket is destroyed. Before login a client may send `preLoginBytes` in all
 * (its CONNECT, and perhaps a packet pipelined after it); once logged in, each packet may be up
 * to the limit of who it is. A socket whose first packet (the CONNECT) is not complete within
 * `connectTimeoutMs` is destroyed too: idle and half-finished connections hold descriptors.
 */
import type { Socket } from 'node:net';

export type ScanVerdict =
  | { ok: true }
  | { ok: false; reason: 'too-large'; size: number; limit: number }
  | { ok: false; reason: 'malformed' };

/**
 * MQTT fixed headers, followed through a byte stream: a type byte, then the remaining length in
 * 1 to 4 bytes of 7 bits (least significant first, the top bit saying "more follows").
 */
export class FrameScanner {
  /** bytes seen so far */
  private offset = 0;
  /** where the packet being read starts */
  private start = 0;
  /** bytes of its fixed header read so far; 0 when the next byte starts a packet */
  private headerBytes = 0;
  private length = 0;
  /** bytes of its body still to come */
  private left = 0;
  /** packets whose last byte has been seen */
  complete = 0;

  /**
   * `maxSize(start)`: the largest packet (header included) allowed to start at that offset of
   * the stream; given as a function, or by an object with that method (a socket's guard).
   */
  constructor(private readonly limits: ((start: number) => number) | { maxSize(start: number): number }) {}

  private maxSize(start: number): number {
    return typeof this.limits === 'function' ? this.limits(start) : this.limits.maxSize(start);
  }

  scan(chunk: Buffer): ScanVerdict {
    let i = 0;
    while (i < chunk.length) {
      if (this.left > 0) {
        const n = Math.min(this.left, chunk.length - i);
        this.left -= n;
        this.offset += n;
        i += n;
        if (this.left === 0) this.complete++;
        continue;
      }
      const byte = chunk[i++];
      this.offset++;
      if (this.headerBytes === 0) {
        this.start = this.offset - 1;
        this.headerBytes = 1;
        this.length = 0;
        continue;
      }
      this.length += (byte & 0x7f) * 128 ** (this.headerBytes - 1);
      this.headerBytes++;
      if (byte & 0x80) {
        if (this.headerBytes > 4) return { ok: false, reason: 'malformed' };
        continue;
      }
      const size = this.headerBytes + this.length;
      const limit = this.maxSize(this.start);
      if (size > limit) return { ok: false, reason: 'too-large', size, limit };
      this.headerBytes = 0;
      this.left = this.length;
      if (this.left === 0) this.complete++;
    }
    return { ok: true };
  }
}

export interface GuardOptions {
  /** the client's address as limits count it (client-address.ts) */
  address: string;
  preLoginBytes: number;
  connectTimeoutMs: number;
  /** one function for every socket (it is told whose): no closure per connection */
  onRefused(reason: 'oversized-packet' | 'connect-timeout', address: string, detail: Record<string, unknown>): void;
}

/** What the broker asks of a guarded socket: whose it is, and that its client logged in. */
export interface SocketGuard {
  readonly address: string;
  /** Logged in: each packet may now be up to `maxPacket` bytes (Infinity for the cloud's own client). */
  admit(maxPacket: number): void;
}

const guards = new WeakMap<object, SocketGuard>();

/** The guard of a socket `guardSocket` guards; undefined for any other stream. */
export function guardOf(conn: unknown): SocketGuard | undefined {
  return conn !== null && typeof conn === 'object' ? guards.get(conn) : undefined;
}

/**
 * One socket's guard: its limits, the scanner of its stream and the CONNECT deadline. A class
 * with shared methods rather than closures per socket: with 10,000 lockers connected, each
 * closure and its context is memory per locker (bench:sync's heap snapshots).
 */
class Guard implements SocketGuard {
  readonly scanner: FrameScanner;
  maxPacket: number | undefined;
  deadline: NodeJS.Timeout | undefined;

  constructor(
    readonly socket: Socket,
    readonly options: GuardOptions,
    /** the socket's own `read`, which the guarded one calls */
    readonly read: Socket['read'],
  ) {
    this.scanner = new FrameScanner(this);
  }

  get address(): string {
    return this.options.address;
  }

  admit(maxPacket: number): void {
    this.maxPacket = maxPacket;
  }

  /** The scanner's limit for a packet starting at `start`: the CONNECT's budget until login. */
  maxSize(start: number): number {
    return this.maxPacket ?? this.options.preLoginBytes - start;
  }

  refuse(reason: 'oversized-packet' | 'connect-timeout', detail: Record<string, unknown>): void {
    if (this.socket.destroyed) return;
    this.options.onRefused(reason, this.options.address, detail);
    this.socket.destroy();
  }

  clearDeadline(): void {
    clearTimeout(this.deadline);
    this.deadline = undefined;
  }
}

function onConnectTimeout(guard: Guard) {
  guard.refuse('connect-timeout', { afterMs: guard.options.connectTimeoutMs });
}

function onClose(this: Socket) {
  (guards.get(this) as Guard | undefined)?.clearDeadline();
}

/** The socket's `read`, scanning what it returns before anyone sees it. */
function guardedRead(this: Socket, size?: number) {
  const guard = guards.get(this) as Guard;
  const chunk = guard.read.call(this, size) as Buffer | string | null;
  if (chunk === null || this.destroyed) return null;
  const verdict = guard.scanner.scan(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  if (!verdict.ok) {
    const loggedIn = guard.maxPacket !== undefined;
    guard.refuse(
      'oversized-packet',
      verdict.reason === 'malformed'
        ? { loggedIn, malformed: true }
        : { loggedIn, size: verdict.size, limit: verdict.limit },
    );
    return null;
  }
  if (guard.deadline && guard.scanner.complete > 0) guard.clearDeadline();
  return chunk;
}

/**
 * Guards the socket aedes is given. aedes reads it in paused mode (`readable`, then `read()`),
 * and so does Node's own flowing mode: the guard wraps the socket's `read`, scans what it
 * returns before anyone sees it, and destroys the socket instead of returning a packet that
 * is too large. What waits unread stays within the socket's buffer (its high-water mark), so
 * nothing is held beyond that. It used to be a Duplex wrapped around the socket: two more
 * stream states, a hop per chunk and ~1 KB of heap per connected locker (bench:sync).
 */
export function guardSocket(socket: Socket, options: GuardOptions): SocketGuard {
  const guard = new Guard(socket, options, socket.read);
  guards.set(socket, guard);
  guard.deadline = setTimeout(onConnectTimeout, options.connectTimeoutMs, guard);
  socket.once('close', onClose);
  socket.read = guardedRead;
  return guard;
}
