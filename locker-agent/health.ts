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

/** A store that grew or shrank by this much since the last report is worth a report. */
const STORE_CHANGE_BYTES = 1024 * 1024;

/**
 * Whether `next` tells the cloud something `last` did not: a board answering or not, a counter
 * that moved, the outbox, a store a megabyte bigger or smaller, another agent version. The time,
 * the uptime and each board's last answer move always and say nothing new while every board answers.
 */
export function healthChanged(last: HealthMessage, next: HealthMessage): boolean {
  if (last.agentVersion !== next.agentVersion || last.outboxSize !== next.outboxSize) return true;
  if (Math.abs(last.storeBytes - next.storeBytes) >= STORE_CHANGE_BYTES) return true;
  if (last.boards.length !== next.boards.length) return true;
  return next.boards.some((b, i) => {
    const was = last.boards[i];
    return (
      was.board !== b.board ||
      was.online !== b.online ||
      was.timeouts !== b.timeouts ||
      was.checksumErrors !== b.checksumErrors
    );
  });
}

/**
 * When a look at the agent's health (every `cloud.healthIntervalMs`) is published: when it
 * changed since the report last sent, or when nothing was sent for `heartbeatMs`. A healthy
 * locker that reported every 15 minutes sent 96 identical reports a day over a cellular link,
 * each one a message for the broker and a write for the cloud; reporting changes (as LwM2M's
 * minimum and maximum periods do) keeps what an operator reads and drops the repetition.
 */
export class HealthSchedule {
  private last: { msg: HealthMessage; at: number } | undefined;

  constructor(private readonly heartbeatMs: number) {}

  /** Whether the periodic look should publish `next` now. */
  due(next: HealthMessage, now: number): boolean {
    if (!this.last) return true;
    return now - this.last.at >= this.heartbeatMs || healthChanged(this.last.msg, next);
  }

  /** `msg` was published at `now`. */
  sent(msg: HealthMessage, now: number): void {
    this.last = { msg, at: now };
  }
}
