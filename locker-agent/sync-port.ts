import type { CellsMessage, HealthMessage, LockerEvent, ResponseMessage } from '../shared/mqtt/index.ts';
import type { SyncResult } from './store.ts';

/**
 * What the cloud link (the MQTT sync in sync.ts, the simulator's IPC channel, a JSON file)
 * needs from an agent. Incoming messages are validated with the shared zod schemas inside.
 */
export interface AgentSyncPort {
  /** `lockers/{id}/sync`: a full snapshot or a delta after syncVersion(); `gap`: ask again. */
  applySync(message: unknown): SyncResult;
  /** `lockers/{id}/commands`; answer goes to `…/responses`. Redelivery is answered, not re-run. */
  handleCommand(message: unknown): Promise<ResponseMessage>;
  /** `lockers/{id}/acks`: the event may leave the outbox. */
  ack(eventId: string): boolean;
  /** Outbox, oldest first: publish these (again) after a reconnect. */
  pendingEvents(): LockerEvent[];
  /** Sent in the connection message so the cloud knows what to resend. */
  syncVersion(): number;
  /** What to announce instead, when it differs (0 while the cloud's cell map is missing: a full snapshot brings it). */
  announcedVersion?(): number;
  cellsMessage(): CellsMessage;
  /** `lockers/{id}/health`, retained: on connecting, on each `health` event, and when a periodic look finds it changed (sync.ts). */
  healthMessage?(): HealthMessage;
  on(event: 'health', listener: () => void): unknown;
  on(event: 'event', listener: (event: LockerEvent) => void): unknown;
  on(event: 'cells', listener: (cells: CellsMessage) => void): unknown;
  off(event: 'health', listener: () => void): unknown;
  off(event: 'event', listener: (event: LockerEvent) => void): unknown;
  off(event: 'cells', listener: (cells: CellsMessage) => void): unknown;
}
