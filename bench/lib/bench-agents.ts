/**
 * Lightweight locker agents for bench:sync: the real MQTT client side (locker-agent/sync.ts)
 * and the real agent store (SQLite, synchronous=FULL), without boards or keypad. An order's
 * code is "usable" the moment the store that applied the sync message finds the order by its
 * DOWN code, which is what the keypad path asks it first.
 */
import { EventEmitter } from 'node:events';
import path from 'node:path';
import mqtt from 'mqtt';
import {
  CONTRACT_VERSION,
  type CellsMessage,
  type LockerEvent,
  type ResponseMessage,
  type SyncMessage,
} from '../../shared/mqtt/index.ts';
import { systemClock } from '../../locker-agent/clock.ts';
import { AgentStore, type NewEvent, type SyncResult } from '../../locker-agent/store.ts';
import { AgentSync } from '../../locker-agent/sync.ts';
import type { AgentSyncPort } from '../../locker-agent/sync-port.ts';

const quiet = { info: () => {}, warn: () => {}, error: (m: string) => console.error(`[bench agent] ${m}`) };

class StoreOnlyPort extends EventEmitter implements AgentSyncPort {
  constructor(
    readonly store: AgentStore,
    private readonly onUsable: (orderId: string, at: number) => void,
    private readonly onReceived: (orderId: string, at: number) => void,
    private readonly onAcked: (eventId: string, at: number) => void,
    private readonly now: () => number,
    private readonly cells: number,
  ) {
    super();
  }
  /** A door event, as the agent records it (its outbox) and hands it to the sync link. */
  send(event: NewEvent): LockerEvent {
    const full = this.store.appendEvent(event);
    this.emit('event', full);
    return full;
  }
  applySync(message: unknown): SyncResult {
    const received = this.now();
    for (const o of (message as SyncMessage).upserts) this.onReceived(o.orderId, received);
    const result = this.store.applySync(message);
    if (!result.applied) return result;
    const at = this.now();
    for (const o of (message as SyncMessage).upserts) {
      if (this.store.ordersByCode(o.codes.DOWN).some((m) => m.order.orderId === o.orderId))
        this.onUsable(o.orderId, at);
    }
    return result;
  }
  async handleCommand(message: unknown): Promise<ResponseMessage> {
    return {
      v: CONTRACT_VERSION,
      commandId: String((message as { commandId?: string }).commandId),
      status: 'error',
      error: 'a bench agent has no cells',
    };
  }
  ack(eventId: string) {
    const acked = this.store.ack(eventId);
    if (acked) this.onAcked(eventId, this.now());
    return acked;
  }
  pendingEvents(): LockerEvent[] {
    return this.store.pendingEvents();
  }
  syncVersion() {
    return this.store.syncVersion();
  }
  /** `cells` M cells numbered from 1, closed and empty (none: the cloud raises a cell-map alarm per locker). */
  cellsMessage(): CellsMessage {
    const cells = Array.from({ length: this.cells }, (_, i) => ({
      cellId: String(i + 1),
      size: 'M' as const,
      lockClosed: true,
      parcelPresent: false,
      state: 'OK' as const,
    }));
    return { v: CONTRACT_VERSION, at: new Date().toISOString(), cells };
  }
}

export interface BenchAgents {
  /** `now()` (performance.now() unless given) at which each order's code first became usable at its locker */
  usableAt: Map<string, number>;
  /** when its sync message reached the agent (before the store applied it) */
  receivedAt: Map<string, number>;
  /** when each event `send` published was acknowledged by the cloud (committed there) */
  ackedAt: Map<string, number>;
  /** when `send` handed each event to the link */
  sentAt: Map<string, number>;
  /** a door event at the locker `lockerId`: recorded in its outbox and published; returns its id */
  send(lockerId: string, event: NewEvent): string;
  close(): Promise<void>;
}

/**
 * Starts one agent per locker and resolves once all are connected (at most `concurrency`
 * connecting at a time). `now` is the clock of every timestamp (bench:peak passes a monotonic
 * clock shared by its processes); `cells`: how many cells each reports (the seeded ones).
 */
export async function startBenchAgents(
  lockers: Array<{ id: string; password: string }>,
  mqttUrl: string,
  dir: string,
  concurrency = 50,
  now: () => number = () => performance.now(),
  cells = 0,
): Promise<BenchAgents> {
  const usableAt = new Map<string, number>();
  const receivedAt = new Map<string, number>();
  const ackedAt = new Map<string, number>();
  const sentAt = new Map<string, number>();
  const ports = new Map<string, StoreOnlyPort>();
  const agents: Array<{ sync: AgentSync; store: AgentStore }> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < lockers.length) {
        const l = lockers[next++];
        const store = AgentStore.open(path.join(dir, l.id));
        const port = new StoreOnlyPort(
          store,
          (orderId, at) => usableAt.has(orderId) || usableAt.set(orderId, at),
          (orderId, at) => receivedAt.has(orderId) || receivedAt.set(orderId, at),
          (eventId, at) => ackedAt.set(eventId, at),
          now,
          cells,
        );
        ports.set(l.id, port);
        const sync = new AgentSync(
          port,
          { lockerId: l.id, mqttUrl, username: l.id, password: l.password, agentVersion: 'bench' },
          { connect: mqtt.connect, clock: systemClock, log: quiet },
        );
        agents.push({ sync, store });
        sync.start();
        while (!sync.connected) await new Promise((r) => setTimeout(r, 5));
      }
    }),
  );
  return {
    usableAt,
    receivedAt,
    ackedAt,
    sentAt,
    send(lockerId, event) {
      const port = ports.get(lockerId);
      if (!port) throw new Error(`no bench agent for locker ${lockerId}`);
      const at = now();
      const full = port.send(event);
      sentAt.set(full.eventId, at);
      return full.eventId;
    },
    async close() {
      for (const a of agents) {
        await a.sync.stop();
        a.store.close();
      }
    },
  };
}
