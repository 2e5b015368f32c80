/**
 * Two connected duplex streams in one process: what one side writes, the other reads. The
 * cloud's own MQTT client talks to the embedded broker through a pair of these instead of a
 * loopback socket, so a locker's message reaches the cloud without two more system calls and
 * event-loop wake-ups on each side (node 20 has no stream.duplexPair).
 */
import { Duplex } from 'node:stream';

class PipeEnd extends Duplex {
  other!: PipeEnd;
  /** the other side's write, held until this side's reader asks for more */
  private held: (() => void) | undefined;

  override _read(): void {
    const resume = this.held;
    this.held = undefined;
    resume?.();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    if (this.other.destroyed) callback(new Error('the other end is closed'));
    else if (this.other.push(chunk)) callback();
    else this.other.held = callback;
  }

  override _final(callback: (err?: Error | null) => void): void {
    this.other.push(null);
    callback();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    const held = this.held;
    this.held = undefined;
    held?.();
    // A closed end closes the other, as a socket's peer sees the connection go.
    if (!this.other.destroyed) this.other.destroy();
    callback(err);
  }
}

export function inProcessPipe(): [Duplex, Duplex] {
  const a = new PipeEnd();
  const b = new PipeEnd();
  a.other = b;
  b.other = a;
  return [a, b];
}
