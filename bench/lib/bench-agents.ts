/**
 * Lightweight locker agents for bench:sync: the real MQTT client side (locker-agent/sync.ts)
 * and the real agent store (SQLite, synchronous=FULL), without boards or keypad. An order's
 * code is "usable" the moment the store that applied the sync message finds the order by its
 * DOWN code, which is what the keypad path asks it first.
 */
import { EventEmitter } from 'node:events';
import path from 'node:path';
import mqtt from 'mqtt';
import { CONTRACT_VERSION, type CellsMessage, type LockerEvent, type ResponseMessage, type SyncMessage } from '../../shared/mqtt/index.ts';
import { systemClock } from '../../locker-agent/clock.ts';
import { AgentStore, type SyncResult } from '../../locker-agent/store.ts';
import { AgentSync } from '../../locker-agent/sync.ts';
import type { AgentSyncPort } from '../../locker-agent/sync-port.ts';

const quiet = { info: () => {}, warn: () => {}, error: (m: string) => console.error(`[bench agent] ${m}`) };

class StoreOnlyPort extends EventEmitter implements AgentSyncPort {
  constructor(
    readonly store: AgentStore,
    private readonly onUsable: (orderId: string, at: number) => void,
    private readonly onReceived: (orderId: string, at: number) => void,
  ) {
    super();
  }
  applySync(message: unknown): SyncResult {
    const received = performance.now();
    for (const o of (message as SyncMessage).upserts) this.onReceived(o.orderId, received);
    const result = this.store.applySync(message);
    if (!result.applied) return result;
    const at = performance.now();
    for (const o of (message as SyncMessage).upserts) {
      if (this.store.ordersByCode(o.codes.DOWN).some((m) => m.order.orderId === o.orderId)) this.onUsable(o.orderId, at);
    }
    return result;
  }
  async handleCommand(message: unknown): Promise<ResponseMessage> {
    return { v: CONTRACT_VERSION, commandId: String((message as { commandId?: string }).commandId), status: 'error', error: 'a bench agent has no cells' };
  }
  ack(eventId: string) {
    return this.store.ack(eventId);
  }
  pendingEvents(): LockerEvent[] {
    return this.store.pendingEvents();
  }
  syncVersion() {
    return this.store.syncVersion();
  }
  cellsMessage(): CellsMessage {
    return { v: CONTRACT_VERSION, at: new Date().toISOString(), cells: [] };
  }
}

export interface BenchAgents {
  /** performance.now() at which each order's code became usable at its locker */
  usableAt: Map<string, number>;
  /** performance.now() at which its sync message reached the agent (before the store applied it) */
  receivedAt: Map<string, number>;
  close(): Promise<void>;
}

/** Starts one agent per locker and resolves once all are connected (at most `concurrency` connecting at a time). */
export async function startBenchAgents(lockers: Array<{ id: string; password: string }>, mqttUrl: string, dir: string, concurrency = 50): Promise<BenchAgents> {
  const usableAt = new Map<string, number>();
  const receivedAt = new Map<string, number>();
  const agents: Array<{ sync: AgentSync; store: AgentStore }> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < lockers.length) {
        const l = lockers[next++];
        const store = AgentStore.open(path.join(dir, l.id));
        const port = new StoreOnlyPort(
          store,
          (orderId, at) => usableAt.set(orderId, at),
          (orderId, at) => receivedAt.has(orderId) || receivedAt.set(orderId, at),
        );
        const sync = new AgentSync(port, { lockerId: l.id, mqttUrl, username: l.id, password: l.password, agentVersion: 'bench' }, { connect: mqtt.connect, clock: systemClock, log: quiet });
        agents.push({ sync, store });
        sync.start();
        while (!sync.connected) await new Promise((r) => setTimeout(r, 5));
      }
    }),
  );
  return {
    usableAt,
    receivedAt,
    async close() {
      for (const a of agents) {
        await a.sync.stop();
        a.store.close();
      }
    },
  };
}
