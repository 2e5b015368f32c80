import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import {
  CONTRACT_VERSION,
  CommandMessage,
  type CellsMessage,
  type HealthMessage,
  type LockerEvent,
  type ResponseMessage,
} from '../shared/mqtt/index.ts';
import { isoNow, systemClock, type Clock } from './clock.ts';
import { KerongBus } from './boards/kerong-bus.ts';
import type { SerialLink } from './boards/serial-link.ts';
import { cellPlacement, describeCellMap } from './cell-map.ts';
import { CellMonitor } from './cells.ts';
import { busOptionsOf, type AgentConfig } from './config.ts';
import { Controller } from './controller.ts';
import { consoleLog, type Display, type Log } from './display.ts';
import type { KeypadSource } from './keypad/keypad.ts';
import { DoorSessions } from './sessions.ts';
import { healthMessage } from './health.ts';
import { TamperWatch } from './tamper.ts';
import { AgentStore, type SyncResult } from './store.ts';
import type { AgentSyncPort } from './sync-port.ts';

export const AGENT_VERSION = '0.1.0';

export interface AgentDeps {
  /** The RS-485 bus: a serial device, a pseudo-terminal or the simulator's in-memory link. */
  bus: SerialLink;
  keypad: KeypadSource;
  display: Display;
  clock?: Clock;
  log?: Log;
}

export interface AgentEvents {
  event: [LockerEvent];
  cells: [CellsMessage];
  /** something the health report shows changed now (a board went silent or came back) */
  health: [];
}

/**
 * One locker: boards, keypad, store and the controller between them. The MQTT sync (sync.ts)
 * drives it through applySync / handleCommand / ack and listens to `event` and `cells`.
 */
export class LockerAgent extends EventEmitter<AgentEvents> implements AgentSyncPort {
  readonly store: AgentStore;
  readonly bus: KerongBus;
  readonly cells: CellMonitor;
  readonly controller: Controller;
  private readonly sessions: DoorSessions;
  private readonly tamper: TamperWatch;
  private readonly clock: Clock;
  private readonly startedAt: number;
  private readonly log: Log;

  constructor(
    readonly config: AgentConfig,
    private readonly deps: AgentDeps,
  ) {
    super();
    this.clock = deps.clock ?? systemClock;
    this.log = deps.log ?? consoleLog;
    this.startedAt = this.clock.now();
    this.store = AgentStore.open(config.dataDir);
    this.bus = new KerongBus(deps.bus, this.clock, busOptionsOf(config));
    this.cells = new CellMonitor(config.cells, this.bus, this.clock, () => this.store.cellFaults());
    const publish = (events: LockerEvent[]) => events.forEach((e) => this.emit('event', e));
    const t = config.timing;
    this.sessions = new DoorSessions(this.store, this.bus, this.cells, deps.display, this.clock, t, this.log, publish);
    const placement = cellPlacement(config.cloud !== undefined, () => this.store.cloudCellMap());
    this.controller = new Controller(
      this.store,
      this.cells,
      this.sessions,
      deps.display,
      this.clock,
      t,
      this.log,
      publish,
      placement,
    );
    this.tamper = new TamperWatch(this.cells, this.store, this.clock, t.doorOpenAlarmMs, this.log, publish);
  }

  /** Starts polling, finishes intents left open by a crash, then listens to the keypad. */
  async start(): Promise<void> {
    if (this.config.ordersFile) this.loadOrdersFile(this.config.ordersFile);
    this.bus.attach();
    this.cells.start();
    this.tamper.start();
    this.cells.on('change', (cells) => this.emit('cells', { v: CONTRACT_VERSION, at: isoNow(this.clock), cells }));
    this.bus.on('boardOffline', (b) => {
      this.log.warn(`board ${b} does not answer: its cells are unknown`);
      this.emit('health');
    });
    this.bus.on('boardOnline', (b) => {
      this.log.info(`board ${b} answers`);
      this.emit('health');
    });
    // One full round of status before anything acts on the cells.
    for (const board of this.config.boards) await this.bus.readStatus(board);
    this.bus.start();
    this.sessions.resumeAll();
    this.deps.keypad.on('code', (code) => void this.controller.enterCode(code));
    this.deps.keypad.start();
    this.log.info(
      `locker ${this.config.lockerId} ready: ${this.config.cells.length} cells on boards ${this.config.boards.join(', ')}`,
    );
    if (this.config.cloud) this.reportCellMap();
  }

  async stop(): Promise<void> {
    await this.deps.keypad.stop();
    await this.sessions.stop();
    this.tamper.stop();
    await this.bus.stop();
    await this.deps.bus.close();
    this.store.close();
  }

  /** A sync message from the cloud (or the simulator); validated by the store. */
  applySync(message: unknown): SyncResult {
    const result = this.store.applySync(message);
    if (result.cellMapChanged && this.config.cloud) this.reportCellMap();
    this.cells.refresh();
    return result;
  }

  /** Says what of its cell map differs from the cloud's (the cloud raises an alarm for it too). */
  private reportCellMap(): void {
    const map = this.store.cloudCellMap();
    if (map.state === 'legacy') {
      this.log.warn("the cloud sends no cell map (an older cloud): the config's cells are used unchecked");
      return;
    }
    const problems = describeCellMap(this.config.cells, map);
    if (problems) this.log.warn(problems);
    else if (map.state === 'map') this.log.info(`cell map confirmed by the cloud: ${map.cells.size} cells`);
  }

  /**
   * The version announced on connecting. While a cloud is configured and its cell map has not
   * arrived, 0: the cloud then answers with a full snapshot, which carries the map.
   */
  announcedVersion(): number {
    return this.config.cloud && this.store.cloudCellMap().state === 'none' ? 0 : this.store.syncVersion();
  }

  handleCommand(message: unknown): Promise<ResponseMessage> {
    return this.controller.handleCommand(CommandMessage.parse(message));
  }

  ack(eventId: string): boolean {
    return this.store.ack(eventId);
  }

  pendingEvents(): LockerEvent[] {
    return this.store.pendingEvents();
  }

  syncVersion(): number {
    return this.store.syncVersion();
  }

  healthMessage(): HealthMessage {
    return healthMessage({
      bus: this.bus,
      store: this.store,
      dataDir: this.config.dataDir,
      clock: this.clock,
      startedAt: this.startedAt,
      agentVersion: AGENT_VERSION,
    });
  }

  cellsMessage(): CellsMessage {
    return { v: CONTRACT_VERSION, at: isoNow(this.clock), cells: this.cells.report() };
  }

  /** Accepts a whole sync message or, for hand-written files, a plain array of orders. */
  private loadOrdersFile(path: string): void {
    const raw = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    const message = Array.isArray(raw)
      ? { v: CONTRACT_VERSION, version: this.store.syncVersion(), full: true, upserts: raw, removals: [] }
      : raw;
    const { version } = this.applySync(message);
    this.log.info(`orders loaded from ${path} (sync version ${version})`);
  }
}
