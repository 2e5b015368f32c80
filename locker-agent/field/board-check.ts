import { KerongBus } from '../boards/kerong-bus.ts';
import { openSerialLink } from '../boards/serial-link.ts';
import type { Clock } from '../clock.ts';
import { busOptionsOf, type AgentConfig } from '../config.ts';

export interface BoardCheck {
  /** why the bus could not be asked at all (the device does not open) */
  error?: string;
  answering: number[];
  silent: number[];
}

/** Reads every board of the config once (with its retries), as the agent will; never unlocks. */
export async function checkBoards(config: AgentConfig, clock: Clock): Promise<BoardCheck> {
  const s = config.serial;
  let link: Awaited<ReturnType<typeof openSerialLink>>['link'];
  try {
    link = (await openSerialLink(s.device, s.baudRate)).link;
  } catch (err) {
    return {
      error: `cannot open ${s.device}: ${(err as Error).message.replace(/^(Error: )+/, '')}`,
      answering: [],
      silent: config.boards,
    };
  }
  try {
    const bus = new KerongBus(link, clock, busOptionsOf(config));
    bus.attach();
    const answering: number[] = [];
    const silent: number[] = [];
    for (const board of config.boards) ((await bus.readStatus(board)) ? answering : silent).push(board);
    return { answering, silent };
  } finally {
    await link.close();
  }
}
