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
import { Duplex } from 'node:stream';
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

  /** `maxSize(start)`: the largest packet (header included) allowed to start at that offset of the stream. */
  constructor(private readonly maxSize: (start: number) => number) {}

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
  onRefused(reason: 'oversized-packet' | 'connect-timeout', detail: Record<string, unknown>): void;
}

/**
 * The socket as aedes sees it: a duplex that passes on only what the guard allows. aedes reads
 * it in paused mode (`readable` + `read()`), so the guard listens to the socket itself and
 * pushes what passed, pausing the socket while aedes is behind.
 */
export class GuardedSocket extends Duplex {
  readonly address: string;
  /** per-packet limit once logged in; undefined before */
  private maxPacket: number | undefined;
  private readonly scanner: FrameScanner;
  private deadline: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly options: GuardOptions,
  ) {
    super({ allowHalfOpen: false });
    this.address = options.address;
    this.scanner = new FrameScanner((start) => this.maxPacket ?? options.preLoginBytes - start);
    this.deadline = setTimeout(
      () => this.refuse('connect-timeout', { afterMs: options.connectTimeoutMs }),
      options.connectTimeoutMs,
    );
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('end', () => this.push(null));
    socket.on('error', (err) => this.destroy(err));
    socket.on('close', () => this.destroy());
  }

  /** Logged in: each packet may now be up to `maxPacket` bytes (Infinity for the cloud's own client). */
  admit(maxPacket: number): void {
    this.maxPacket = maxPacket;
  }

  private receive(chunk: Buffer): void {
    if (this.destroyed) return;
    const verdict = this.scanner.scan(chunk);
    if (!verdict.ok) {
      const loggedIn = this.maxPacket !== undefined;
      this.refuse(
        'oversized-packet',
        verdict.reason === 'malformed'
          ? { loggedIn, malformed: true }
          : { loggedIn, size: verdict.size, limit: verdict.limit },
      );
      return;
    }
    if (this.deadline && this.scanner.complete > 0) {
      clearTimeout(this.deadline);
      this.deadline = undefined;
    }
    if (!this.push(chunk)) this.socket.pause();
  }

  private refuse(reason: 'oversized-packet' | 'connect-timeout', detail: Record<string, unknown>): void {
    if (this.destroyed) return;
    this.options.onRefused(reason, detail);
    this.destroy();
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.socket.write(chunk, callback);
  }

  // mqtt-packet writes a packet in several pieces while corked: one write to the socket.
  override _writev(chunks: Array<{ chunk: Buffer }>, callback: (err?: Error | null) => void): void {
    this.socket.write(Buffer.concat(chunks.map((c) => c.chunk)), callback);
  }

  override _final(callback: (err?: Error | null) => void): void {
    this.socket.end(callback);
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    clearTimeout(this.deadline);
    this.deadline = undefined;
    this.socket.destroy();
    callback(err);
  }
}
