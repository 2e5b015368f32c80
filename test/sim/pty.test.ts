import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openSerialLink, type SerialPortLink } from '../../locker-agent/boards/serial-link.ts';
import { SimBoard } from '../../hardware-sim/board.ts';
import { SimBus } from '../../hardware-sim/bus.ts';
import { createPtyPair, type PtyPair } from '../../hardware-sim/pty.ts';
import { tempDir } from '../helpers/sim-harness.ts';

describe('simulated board over a pseudo-terminal', () => {
  const dir = tempDir('pty');
  let pty: PtyPair;
  let agentEnd: SerialPortLink;
  let simEnd: SerialPortLink;
  const board = new SimBoard({ address: 0, unlockTimeMs: 5 });
  before(async () => {
    pty = await createPtyPair(dir.path, 'bus');
    agentEnd = (await openSerialLink(pty.agentPath, 19200)).link;
    simEnd = (await openSerialLink(pty.simPath, 19200)).link;
    new SimBus(simEnd, new Map([[0, board]])).attach();
  });
  after(async () => {
    await agentEnd.close();
    await simEnd.close();
    await pty.close();
    board.close();
    dir.remove();
  });

  function exchange(request: Buffer, length: number): Promise<Buffer> {
    return new Promise((resolve) => {
      let got = Buffer.alloc(0);
      agentEnd.onData((chunk) => {
        got = Buffer.concat([got, chunk]);
        if (got.length === length) resolve(got);
      });
      void agentEnd.write(request);
    });
  }

  it('answers the example status request 02 00 30 03 35 with a 9-byte status frame, bytes unaltered by the tty', async () => {
    board.lock(1).parcel = true;
    const reply = await exchange(Buffer.from('0200300335', 'hex'), 9);
    // All locks closed (hooks ff ff), parcel at lock 1 (IR 01 00), ETX, sum.
    assert.equal(reply.toString('hex'), '020035ffff01000339');
  });
});
