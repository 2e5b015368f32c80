import { Transform, type TransformCallback } from 'node:stream';
import { ETX, STX, frameLength } from './constants.ts';
import { checksum, decodeFrame, type KerongFrame } from './frame.ts';

/**
 * Byte stream → Kerong frames (object mode). Skips to STX, takes the length from the command
 * byte, and checks ETX and SUM. On a bad frame it drops only the STX byte and resynchronises,
 * because RS-485 noise or a half-received reply can contain a genuine STX further on.
 * Used by the driver (replies) and by the simulator (requests).
 */
export class KerongParser extends Transform {
  private buffer: Buffer = Buffer.alloc(0);
  /** Counts dropped bytes so the driver can report a noisy bus. */
  droppedBytes = 0;
  /** Frames whose envelope was complete but whose ETX or SUM was wrong (noise, a collision). */
  corruptFrames = 0;

  constructor() {
    super({ readableObjectMode: true });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    this.parse();
    callback();
  }

  /** Forget a partial frame, e.g. when the driver clears input before a new command. */
  reset(): void {
    this.buffer = Buffer.alloc(0);
  }

  private parse(): void {
    for (;;) {
      const start = this.buffer.indexOf(STX);
      if (start < 0) {
        this.discard(this.buffer.length);
        return;
      }
      this.discard(start);
      if (this.buffer.length < 3) return;
      const length = frameLength(this.buffer[2]);
      if (length === undefined) {
        this.discard(1);
        continue;
      }
      if (this.buffer.length < length) return;
      const frame = this.buffer.subarray(0, length);
      if (frame[length - 2] !== ETX || frame[length - 1] !== checksum(frame, length - 1)) {
        this.corruptFrames++;
        // The ADDR byte may itself be the damaged one: listeners attribute the error to
        // the board they were talking to, not to this byte.
        this.emit('corrupt', frame[1]);
        this.discard(1);
        continue;
      }
      this.buffer = this.buffer.subarray(length);
      const decoded: KerongFrame = decodeFrame(Buffer.from(frame));
      this.push(decoded);
    }
  }

  private discard(count: number): void {
    if (count === 0) return;
    this.droppedBytes += count;
    this.buffer = this.buffer.subarray(count);
  }
}
