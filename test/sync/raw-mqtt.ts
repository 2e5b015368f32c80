/**
 * MQTT 3.1.1 by hand over node:net, for what a well-behaved client library would never send:
 * unfinished packets, lying lengths, floods from chosen loopback addresses (Linux routes all of
 * 127.0.0.0/8 to the loopback interface, so each test can be "another address").
 */
import net from 'node:net';

/** The remaining-length encoding: 7 bits a byte, least significant first. */
export function varint(n: number): Buffer {
  const out: number[] = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return Buffer.from(out);
}

const str = (s: string | Buffer) => {
  const b = Buffer.isBuffer(s) ? s : Buffer.from(s, 'utf8');
  const len = Buffer.alloc(2);
  len.writeUInt16BE(b.length);
  return Buffer.concat([len, b]);
};

export function connectPacket(o: {
  clientId: string;
  username?: string;
  password?: string;
  keepalive?: number;
}): Buffer {
  const flags = 0x02 | (o.username !== undefined ? 0x80 : 0) | (o.password !== undefined ? 0x40 : 0);
  const keepalive = Buffer.alloc(2);
  keepalive.writeUInt16BE(o.keepalive ?? 30);
  const body = Buffer.concat([
    str('MQTT'),
    Buffer.from([4, flags]),
    keepalive,
    str(o.clientId),
    ...(o.username !== undefined ? [str(o.username)] : []),
    ...(o.password !== undefined ? [str(o.password)] : []),
  ]);
  return Buffer.concat([Buffer.from([0x10]), varint(body.length), body]);
}

/** A QoS 0 PUBLISH's fixed header and topic, announcing `payloadBytes` more to come. */
export function publishHead(topic: string, payloadBytes: number): Buffer {
  const t = str(topic);
  return Buffer.concat([Buffer.from([0x30]), varint(t.length + payloadBytes), t]);
}

export interface RawClient {
  socket: net.Socket;
  /** every byte the broker sent */
  received(): Buffer;
  /** resolves when the broker closed the socket (or it failed) */
  closed: Promise<void>;
  isClosed(): boolean;
  /** writes, waiting for the socket to drain; false once the socket is closed */
  write(b: Buffer): Promise<boolean>;
  /** resolves with the CONNACK return code, or undefined when the socket closes first (throws after `guardMs`) */
  connack(guardMs?: number): Promise<number | undefined>;
}

export async function rawClient(port: number, localAddress = '127.0.0.1'): Promise<RawClient> {
  const socket = net.createConnection({ host: '127.0.0.1', port, localAddress });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let data = Buffer.alloc(0);
  let isClosed = false;
  const waiters: Array<() => void> = [];
  socket.on('data', (d: Buffer) => {
    data = Buffer.concat([data, d]);
    waiters.splice(0).forEach((w) => w());
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      isClosed = true;
      waiters.splice(0).forEach((w) => w());
      resolve();
    }),
  );
  return {
    socket,
    received: () => data,
    closed,
    isClosed: () => isClosed,
    async write(b) {
      if (isClosed || socket.destroyed) return false;
      if (socket.write(b)) return true;
      await Promise.race([new Promise((r) => socket.once('drain', r)), closed]);
      return !isClosed;
    },
    async connack(guardMs = 5_000) {
      const deadline = Date.now() + guardMs;
      for (;;) {
        if (data.length >= 4 && data[0] === 0x20) return data[3];
        if (isClosed) return undefined;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error('no CONNACK and no close');
        await new Promise<void>((r) => {
          const t = setTimeout(r, left);
          waiters.push(() => {
            clearTimeout(t);
            r();
          });
        });
      }
    },
  };
}

/**
 * Sends `head` then zeros in 1 MB writes until the broker closes the socket or `maxBytes` are
 * written; returns how many bytes the socket took in all (the kernel's buffers included).
 */
export async function pushUntilClosed(c: RawClient, head: Buffer, maxBytes: number): Promise<number> {
  const chunk = Buffer.alloc(1024 * 1024);
  let sent = 0;
  if (!(await c.write(head))) return 0;
  sent += head.length;
  while (sent < maxBytes) {
    if (!(await c.write(chunk))) break;
    sent += chunk.length;
  }
  return sent;
}
