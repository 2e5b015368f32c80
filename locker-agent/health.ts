import { statSync } from 'node:fs';
import { join } from 'node:path';
import { CONTRACT_VERSION, type HealthMessage } from '../shared/mqtt/index.ts';
import type { KerongBus } from './boards/kerong-bus.ts';
import { isoNow, type Clock } from './clock.ts';
import type { AgentStore } from './store.ts';

const fileSize = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/** What `lockers/{id}/health` carries (shared/mqtt/field.ts): the agent as it is now. */
export function healthMessage(parts: {
  bus: KerongBus;
  store: AgentStore;
  dataDir: string;
  clock: Clock;
  startedAt: number;
  agentVersion: string;
}): HealthMessage {
  const counters = new Map(parts.bus.boardCounters().map((c) => [c.board, c]));
  const db = join(parts.dataDir, 'agent.db');
  return {
    v: CONTRACT_VERSION,
    at: isoNow(parts.clock),
    agentVersion: parts.agentVersion,
    uptimeSeconds: Math.max(0, Math.floor((parts.clock.now() - parts.startedAt) / 1000)),
    outboxSize: parts.store.outboxSize(),
    storeBytes: fileSize(db) + fileSize(`${db}-wal`),
    boards: parts.bus.boards.map((board) => {
      const c = counters.get(board);
      return {
        board,
        online: parts.bus.isOnline(board),
        timeouts: c?.timeouts ?? 0,
        checksumErrors: c?.checksumErrors ?? 0,
        lastAnswerAt: c?.lastAnswerAt === undefined ? null : new Date(c.lastAnswerAt).toISOString(),
      };
    }),
  };
}
