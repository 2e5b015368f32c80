import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  KerongCommand,
  KerongParser,
  KerongRequest,
  KerongStatus,
  FrameError,
  checksum,
  type KerongFrame,
} from '../../shared/protocols/kerong/index.ts';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

function allClosed(board: number, lock = 1, parcelAt: number[] = []): KerongStatus {
  const closed = Array.from({ length: 16 }, () => true);
  const parcel = Array.from({ length: 16 }, (_, i) => parcelAt.includes(i + 1));
  return new KerongStatus(board, closed, parcel, lock);
}

function feed(chunks: Buffer[]): KerongFrame[] {
  const parser = new KerongParser();
  const out: KerongFrame[] = [];
  parser.on('data', (f: KerongFrame) => out.push(f));
  for (const c of chunks) parser.write(c);
  return out;
}

describe('Kerong KR-CU16 request frames', () => {
  it('encodes the status request of board 0 as 02 00 30 03 35', () => {
    assert.deepEqual(KerongRequest.readStatus(0).toBuffer(), hex('02 00 30 03 35'));
  });

  it('encodes the unlock of board 0 lock 1 as 02 00 31 03 36', () => {
    assert.deepEqual(KerongRequest.unlock(0, 1).toBuffer(), hex('02 00 31 03 36'));
  });

  it('puts the board in the high nibble and lock - 1 in the low nibble', () => {
    assert.deepEqual(KerongRequest.unlock(2, 16).toBuffer(), hex('02 2f 31 03 65'));
  });

  it('decodes the example frames back to the same request', () => {
    const r = KerongRequest.fromBuffer(hex('02 00 31 03 36'));
    assert.equal(r.cmd, KerongCommand.Unlock);
    assert.equal(r.board, 0);
    assert.equal(r.lock, 1);
  });

  it('rejects a request with a bad checksum', () => {
    assert.throws(() => KerongRequest.fromBuffer(hex('02 00 30 03 36')), FrameError);
  });

  it('refuses lock numbers and board addresses that do not fit a nibble', () => {
    assert.throws(() => KerongRequest.unlock(0, 17), RangeError);
    assert.throws(() => KerongRequest.unlock(16, 1), RangeError);
    assert.throws(() => KerongRequest.unlock(0, 0), RangeError);
  });
});

describe('Kerong status reply', () => {
  it('is 9 bytes with lock 1 in bit 0 of HOOK1-8 and the sum of the preceding bytes last', () => {
    const closed = Array.from({ length: 16 }, (_, i) => i === 0 || i === 8);
    const parcel = Array.from({ length: 16 }, (_, i) => i === 15);
    const buf = new KerongStatus(1, closed, parcel).toBuffer();
    assert.deepEqual(
      buf,
      hex(`02 10 35 01 01 00 80 03 ${checksum(hex('02 10 35 01 01 00 80 03')).toString(16).padStart(2, '0')}`),
    );
    assert.equal(buf.length, 9);
  });

  it('round-trips hooks and parcel sensors', () => {
    const s = KerongStatus.fromBuffer(allClosed(3, 1, [2, 16]).toBuffer());
    assert.equal(s.board, 3);
    assert.equal(s.isClosed(5), true);
    assert.equal(s.hasParcel(2), true);
    assert.equal(s.hasParcel(16), true);
    assert.equal(s.hasParcel(1), false);
  });
});

describe('KerongParser', () => {
  const reply = allClosed(0, 1, [1]).toBuffer();

  it('emits a reply split across chunks once it is complete', () => {
    const frames = feed([reply.subarray(0, 2), reply.subarray(2, 6), reply.subarray(6)]);
    assert.equal(frames.length, 1);
    assert.ok(frames[0] instanceof KerongStatus);
    assert.equal((frames[0] as KerongStatus).hasParcel(1), true);
  });

  it('emits two frames merged in one chunk in order', () => {
    const second = allClosed(2).toBuffer();
    const frames = feed([Buffer.concat([reply, second])]);
    assert.deepEqual(
      frames.map((f) => f.board),
      [0, 2],
    );
  });

  it('skips junk before the start byte', () => {
    const frames = feed([Buffer.concat([hex('ff 00 13 37'), reply])]);
    assert.equal(frames.length, 1);
    assert.equal(frames[0].board, 0);
  });

  it('drops a frame with a bad checksum and still finds the next one', () => {
    const bad = Buffer.from(reply);
    bad[8] ^= 0xff;
    const frames = feed([Buffer.concat([bad, allClosed(4).toBuffer()])]);
    assert.equal(frames.length, 1);
    assert.equal(frames[0].board, 4);
  });

  it('counts a complete frame with a bad checksum and says so with its ADDR byte', () => {
    const parser = new KerongParser();
    const corrupt: number[] = [];
    parser.on('corrupt', (addr: number) => corrupt.push(addr));
    const bad = allClosed(3).toBuffer();
    bad[8] ^= 0x01;
    parser.write(bad);
    assert.equal(parser.corruptFrames, 1);
    assert.deepEqual(corrupt, [0x30]);
  });

  it('resynchronises on an STX inside junk that looks like a frame start', () => {
    const frames = feed([hex('02 00'), hex('02 00 30 03 35')]);
    assert.equal(frames.length, 1);
    assert.ok(frames[0] instanceof KerongRequest);
  });

  it('parses request frames too, for the simulator side', () => {
    const frames = feed([hex('02 00 30 03 35 02 00 31 03 36')]);
    assert.deepEqual(
      frames.map((f) => (f as KerongRequest).cmd),
      [KerongCommand.ReadStatus, KerongCommand.Unlock],
    );
  });

  it('forgets a partial frame on reset', () => {
    const parser = new KerongParser();
    const out: KerongFrame[] = [];
    parser.on('data', (f: KerongFrame) => out.push(f));
    parser.write(reply.subarray(0, 4));
    parser.reset();
    parser.write(reply.subarray(4));
    parser.write(reply);
    assert.equal(out.length, 1);
  });
});
