import type { CellSize } from '../shared/mqtt/index.ts';
import type { FleetLocker } from './fleet.ts';

/** A locker as the cloud's operator tools describe it: its cells and its agent's credentials. */
export interface CloudLockerSpec {
  id: string;
  shortId?: string;
  title?: string;
  cells: Array<{ number: number; size: string; board: number; lock: number }>;
  agent: { username: string; password: string };
}

/**
 * Simulated lockers for lockers that exist in the cloud: the same boards and cells (the agent
 * names a cell by its number in the cloud), and an agent that connects to the cloud's broker
 * with the locker's own credentials.
 */
export function fleetOfCloudLockers(lockers: CloudLockerSpec[], mqttUrl: string): FleetLocker[] {
  return lockers.map((l) => ({
    id: l.id,
    // As staff name it: "BSK101 TSUM Chui".
    title: [l.shortId, l.title].filter(Boolean).join(' ') || undefined,
    boards: [...new Set(l.cells.map((c) => c.board))].sort((a, b) => a - b),
    cells: l.cells.map((c) => ({ cellId: String(c.number), board: c.board, lock: c.lock, size: c.size as CellSize })),
    cloud: { mqttUrl, username: l.agent.username, password: l.agent.password },
  }));
}
