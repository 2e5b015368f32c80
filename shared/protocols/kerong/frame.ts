import {
  ETX,
  KerongCommand,
  LOCKS_PER_BOARD,
  MAX_BOARD_ADDRESS,
  STATUS_LENGTH,
  STX,
  REQUEST_LENGTH,
} from './constants.ts';

/** SUM = low byte of the sum of every byte before it. */
export function checksum(bytes: ArrayLike<number>, end = bytes.length): number {
  let sum = 0;
  for (let i = 0; i < end; i++) sum += bytes[i];
  return sum & 0xff;
}

/** ADDR byte: high nibble board address, low nibble lock number - 1 (locks are numbered from 1). */
export function encodeAddress(board: number, lock = 1): number {
  if (!Number.isInteger(board) || board < 0 || board > MAX_BOARD_ADDRESS)
    throw new RangeError(`board address ${board} outside 0-15`);
  if (!Number.isInteger(lock) || lock < 1 || lock > LOCKS_PER_BOARD)
    throw new RangeError(`lock number ${lock} outside 1-16`);
  return (board << 4) | (lock - 1);
}

export function decodeAddress(addr: number): { board: number; lock: number } {
  return { board: addr >> 4, lock: (addr & 0x0f) + 1 };
}

export class FrameError extends Error {}

/** A request from the host: read status (lock number is ignored, sent as lock 1) or unlock one lock. */
export class KerongRequest {
  constructor(
    readonly cmd: KerongCommand.ReadStatus | KerongCommand.Unlock,
    readonly board: number,
    readonly lock = 1,
  ) {
    encodeAddress(board, lock);
  }

  static readStatus(board: number): KerongRequest {
    return new KerongRequest(KerongCommand.ReadStatus, board);
  }

  static unlock(board: number, lock: number): KerongRequest {
    return new KerongRequest(KerongCommand.Unlock, board, lock);
  }

  toBuffer(): Buffer {
    const buf = Buffer.from([STX, encodeAddress(this.board, this.lock), this.cmd, ETX, 0]);
    buf[4] = checksum(buf, 4);
    return buf;
  }

  static fromBuffer(buf: Buffer): KerongRequest {
    assertEnvelope(buf, REQUEST_LENGTH);
    const cmd = buf[2];
    if (cmd !== KerongCommand.ReadStatus && cmd !== KerongCommand.Unlock)
      throw new FrameError(`not a request command 0x${cmd.toString(16)}`);
    const { board, lock } = decodeAddress(buf[1]);
    return new KerongRequest(cmd, board, lock);
  }
}

/**
 * Status of one board: for each lock 1..16, whether the hook reports it closed and whether the
 * IR sensor sees a parcel. Bit order (our decision, documented in docs/field-technicians.md):
 * lock 1 is bit 0 (least significant) of HOOK1-8, lock 8 bit 7, lock 9 bit 0 of HOOK9-16.
 *
 * The board answers an Unlock with this same frame (ADDR low nibble = the lock it pulsed), taken
 * right after the pulse; the driver uses it only as an acknowledgement and confirms the door
 * opened from later status reads, because the hook can take a moment to release.
 */
export class KerongStatus {
  constructor(
    readonly board: number,
    readonly closed: readonly boolean[],
    readonly parcel: readonly boolean[],
    /** Lock number carried in ADDR's low nibble (1 for plain status replies). */
    readonly lock = 1,
  ) {
    if (closed.length !== LOCKS_PER_BOARD || parcel.length !== LOCKS_PER_BOARD)
      throw new RangeError('status needs 16 hook and 16 IR values');
  }

  isClosed(lock: number): boolean {
    return this.closed[lock - 1];
  }

  hasParcel(lock: number): boolean {
    return this.parcel[lock - 1];
  }

  toBuffer(): Buffer {
    const hook = packBits(this.closed);
    const ir = packBits(this.parcel);
    const buf = Buffer.from([
      STX,
      encodeAddress(this.board, this.lock),
      KerongCommand.Status,
      hook[0],
      hook[1],
      ir[0],
      ir[1],
      ETX,
      0,
    ]);
    buf[8] = checksum(buf, 8);
    return buf;
  }

  static fromBuffer(buf: Buffer): KerongStatus {
    assertEnvelope(buf, STATUS_LENGTH);
    if (buf[2] !== KerongCommand.Status) throw new FrameError(`not a status reply 0x${buf[2].toString(16)}`);
    const { board, lock } = decodeAddress(buf[1]);
    return new KerongStatus(board, unpackBits(buf[3], buf[4]), unpackBits(buf[5], buf[6]), lock);
  }
}

export type KerongFrame = KerongRequest | KerongStatus;

/** Decodes any complete frame whose length, ETX and SUM were already checked by the parser. */
export function decodeFrame(buf: Buffer): KerongFrame {
  return buf.length === STATUS_LENGTH ? KerongStatus.fromBuffer(buf) : KerongRequest.fromBuffer(buf);
}

function assertEnvelope(buf: Buffer, length: number): void {
  if (buf.length !== length) throw new FrameError(`expected ${length} bytes, got ${buf.length}`);
  if (buf[0] !== STX) throw new FrameError('missing STX');
  if (buf[length - 2] !== ETX) throw new FrameError('missing ETX');
  const sum = checksum(buf, length - 1);
  if (buf[length - 1] !== sum)
    throw new FrameError(`bad checksum 0x${buf[length - 1].toString(16)}, expected 0x${sum.toString(16)}`);
}

function packBits(values: readonly boolean[]): [number, number] {
  let low = 0;
  let high = 0;
  for (let i = 0; i < 8; i++) {
    if (values[i]) low |= 1 << i;
    if (values[i + 8]) high |= 1 << i;
  }
  return [low, high];
}

function unpackBits(low: number, high: number): boolean[] {
  const out: boolean[] = [];
  for (let i = 0; i < 16; i++) out.push((((i < 8 ? low : high) >> (i % 8)) & 1) === 1);
  return out;
}
