import type { SerialLink } from '../locker-agent/boards/serial-link.ts';

/**
 * Two ends of an in-memory serial cable, for fast tests and the in-process fleet. Bytes are
 * delivered on a later tick, like a real port, so nothing depends on synchronous echo.
 */
export class MemoryLink implements SerialLink {
  peer!: MemoryLink;
  private readonly listeners: ((chunk: Buffer) => void)[] = [];
  private closed = false;
  /** Observers of outgoing bytes (the benchmark timestamps unlock frames here). */
  readonly onWrite: ((data: Buffer) => void)[] = [];

  async write(data: Buffer): Promise<void> {
    if (this.closed) throw new Error('link closed');
    for (const fn of this.onWrite) fn(data);
    const copy = Buffer.from(data);
    setImmediate(() => this.peer.deliver(copy));
  }

  async flushInput(): Promise<void> {
    // Nothing is buffered: chunks go straight to the listener on arrival.
  }

  onData(listener: (chunk: Buffer) => void): void {
    this.listeners.push(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private deliver(chunk: Buffer): void {
    if (this.closed) return;
    for (const fn of this.listeners) fn(chunk);
  }
}

export function createLinkPair(): [MemoryLink, MemoryLink] {
  const a = new MemoryLink();
  const b = new MemoryLink();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
