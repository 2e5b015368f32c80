/** A simulated RS-485 bus behind a socat pseudo-terminal pair, for field tests of the driver and the agent's tools. */
import { openSerialLink, type SerialPortLink } from '../../locker-agent/boards/serial-link.ts';
import { SimBoard } from '../../hardware-sim/board.ts';
import { SimBus } from '../../hardware-sim/bus.ts';
import { createPtyPair, type PtyPair } from '../../hardware-sim/pty.ts';
import { tempDir } from '../helpers/sim-harness.ts';

export interface PtyBus {
  /** The device the agent opens, as it opens /dev/ttyUSB0. */
  device: string;
  dir: string;
  sim: SimBus;
  boards: Map<number, SimBoard>;
  /** Only for tests that drive the driver in-process; the CLI tests let the agent open `device`. */
  openAgentEnd(): Promise<SerialPortLink>;
  close(): Promise<void>;
}

export async function startPtyBus(addresses: number[], unlockTimeMs = 10): Promise<PtyBus> {
  const dir = tempDir('field-bus');
  const pty: PtyPair = await createPtyPair(dir.path, 'bus');
  const simEnd = (await openSerialLink(pty.simPath, 19200)).link;
  const boards = new Map(addresses.map((a) => [a, new SimBoard({ address: a, unlockTimeMs })]));
  const sim = new SimBus(simEnd, boards);
  sim.attach();
  const opened: SerialPortLink[] = [];
  return {
    device: pty.agentPath,
    dir: dir.path,
    sim,
    boards,
    async openAgentEnd() {
      const { link } = await openSerialLink(pty.agentPath, 19200);
      opened.push(link);
      return link;
    },
    async close() {
      for (const l of opened) await l.close().catch(() => undefined);
      await simEnd.close();
      await pty.close();
      for (const b of boards.values()) b.close();
      for (const b of sim.clashing.values()) b.close();
      dir.remove();
    },
  };
}
