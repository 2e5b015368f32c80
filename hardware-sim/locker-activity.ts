import type { LockerEvent } from '../shared/mqtt/index.ts';
import type { Clock } from '../shared/clock.ts';
import { maskCode } from '../shared/mask.ts';
import { KerongCommand, type KerongRequest } from '../shared/protocols/kerong/index.ts';
import type { AgentHandle } from './agent-handle.ts';
import type { SimBus } from './bus.ts';
import type { SimLocker } from './locker.ts';

export const ACTIVITY_KINDS = [
  'keypad',
  'display',
  'bus',
  'hardware',
  'event',
  'ack',
  'sync',
  'network',
  'agent',
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export interface ActivityEntry {
  /** Increasing per locker: a stream resumes after the last one it sent (Last-Event-ID). */
  seq: number;
  at: string;
  kind: ActivityKind;
  text: string;
}

export interface ActivityOptions {
  clock: Clock;
  /** Entries kept for a page that opens later. */
  keep?: number;
  /** How often the hardware, the bus and the agent are looked at. */
  tickMs?: number;
  /** How often the agent's outbox and sync version are asked for (cloud-linked lockers only). */
  outboxEveryMs?: number;
}

type HardwareCell = ReturnType<SimLocker['hardwareCells']>[number];

/**
 * A locker's live log, as a person beside it would follow it: codes typed (masked), what the
 * display says, unlock frames on the bus, doors and parcel sensors, the agent's events and the
 * cloud's acks of them, sync versions, network cuts and agent restarts, and the agent's own log.
 *
 * The simulated hardware has no change events (a door springs open on a board's timer) and the
 * agent and its bus are replaced on every restart, so one short tick compares what it saw last
 * with what is there now; the display and the agent's log lines are pushed as they come.
 */
export class LockerActivity {
  private readonly entries: ActivityEntry[] = [];
  private readonly listeners = new Set<(entry: ActivityEntry) => void>();
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopDisplay = () => {};
  private agent: AgentHandle | undefined;
  private readonly onLog = (lines: string[]) => this.agentLines(lines);
  private bus: SimBus | undefined;
  private readonly onRequest = (req: KerongRequest) => this.busRequest(req);
  private cells = new Map<string, HardwareCell>();
  private boards = new Map<number, { silent: boolean; replyDelayMs: number }>();
  private eventsSeen = 0;
  /** Events handed to the cloud link and not yet seen leaving the outbox (acked). */
  private readonly unacked = new Map<string, LockerEvent>();
  private syncVersion: number | undefined;
  private outboxAt = 0;
  private outboxBusy = false;
  /** The network as last set through the control API; a restarted agent comes back connected. */
  networkCut = false;
  readonly keep: number;

  constructor(
    readonly locker: SimLocker,
    private readonly options: ActivityOptions,
  ) {
    this.keep = options.keep ?? 300;
  }

  /** Whether the locker's agent has a cloud link at all (acks and network cuts mean nothing without one). */
  get cloudLinked(): boolean {
    return this.locker.options.agentConfig?.cloud !== undefined;
  }

  start(): void {
    this.stopDisplay = this.locker.onDisplay((line) => this.add('display', line));
    this.cells = new Map(this.locker.hardwareCells().map((c) => [c.cellId, c]));
    this.boards = this.boardStates();
    this.eventsSeen = this.locker.events.length;
    this.tick();
    this.timer = setInterval(() => this.tick(), this.options.tickMs ?? 50);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.stopDisplay();
    this.agent?.off('log', this.onLog);
    this.detachBus();
    this.listeners.clear();
  }

  /** Entries after `seq` (all kept ones for 0). */
  since(seq: number): ActivityEntry[] {
    return this.entries.filter((e) => e.seq > seq);
  }

  subscribe(fn: (entry: ActivityEntry) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** A code typed through the control API; its digits never reach the log. */
  keypad(code: string): void {
    this.add('keypad', `code ${maskCode(code)} typed`);
  }

  network(online: boolean): void {
    this.networkCut = !online;
    this.add(
      'network',
      online
        ? 'network restored: the agent reconnects and catches up'
        : 'network cut: the locker works offline, events wait in its outbox',
    );
  }

  add(kind: ActivityKind, text: string): void {
    const entry = { seq: ++this.seq, at: this.options.clock.now().toISOString(), kind, text };
    this.entries.push(entry);
    if (this.entries.length > this.keep) this.entries.splice(0, this.entries.length - this.keep);
    for (const fn of this.listeners) fn(entry);
  }

  /** Looks now rather than at the next tick (an answer about to describe the locker). */
  refresh(): void {
    this.tick();
  }

  private tick(): void {
    this.followAgent();
    this.followBus();
    this.compareHardware();
    this.newEvents();
    this.askOutbox();
  }

  private followAgent(): void {
    const agent = this.locker.agent;
    if (!agent || agent === this.agent) return;
    const first = this.agent === undefined;
    this.agent?.off('log', this.onLog);
    this.agent = agent;
    if (!first) {
      this.networkCut = false;
      this.syncVersion = undefined;
      this.add('agent', `agent restarted${agent.pid ? ` (pid ${agent.pid})` : ''}`);
    }
    // A fresh agent's whole log so far, then what follows: read and subscribed in one turn.
    this.agentLines(agent.output);
    agent.on('log', this.onLog);
  }

  private agentLines(lines: string[]): void {
    // The child agent echoes its display, already in the log as the display's own entries.
    for (const line of lines) if (!line.startsWith('[display]')) this.add('agent', line);
  }

  private followBus(): void {
    if (this.locker.bus === this.bus) return;
    this.detachBus();
    this.bus = this.locker.bus;
    this.bus?.onRequest.push(this.onRequest);
  }

  private detachBus(): void {
    const i = this.bus?.onRequest.indexOf(this.onRequest) ?? -1;
    if (i >= 0) this.bus!.onRequest.splice(i, 1);
  }

  /**
   * Every request is a moment the agent may learn of a change: the hardware is compared first,
   * so a door closing is logged before what the agent makes of it. Only unlock frames are
   * logged: the status polls (every 30 ms per board) would drown everything.
   */
  private busRequest(req: KerongRequest): void {
    this.compareHardware();
    if (req.cmd !== KerongCommand.Unlock) return;
    const cell = this.locker.options.cells.find((c) => c.board === req.board && c.lock === req.lock);
    const silent = this.locker.boards.get(req.board)?.silent ?? true;
    const bytes = [...req.toBuffer()].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    this.add(
      'bus',
      `unlock ${cell ? `cell ${cell.cellId}` : 'no cell'} (board ${req.board} lock ${req.lock}): ${bytes}${silent ? ', no answer (board silent)' : ''}`,
    );
  }

  private boardStates() {
    return new Map(
      [...this.locker.boards.values()].map((b) => [b.address, { silent: b.silent, replyDelayMs: b.replyDelayMs }]),
    );
  }

  private compareHardware(): void {
    for (const now of this.locker.hardwareCells()) {
      const before = this.cells.get(now.cellId);
      this.cells.set(now.cellId, now);
      if (!before) continue;
      const cell = `cell ${now.cellId}`;
      if (before.doorClosed !== now.doorClosed)
        this.add('hardware', `${cell}: door ${now.doorClosed ? 'closed' : 'open'}`);
      if (before.parcel !== now.parcel) this.add('hardware', `${cell}: parcel ${now.parcel ? 'put in' : 'taken out'}`);
      if (before.jammed !== now.jammed) this.add('hardware', `${cell}: lock ${now.jammed ? 'jammed' : 'free again'}`);
    }
    const boards = this.boardStates();
    for (const [address, now] of boards) {
      const before = this.boards.get(address);
      if (before && before.silent !== now.silent)
        this.add('hardware', `board ${address} ${now.silent ? 'silent: it answers nothing' : 'answers again'}`);
      if (before && before.replyDelayMs !== now.replyDelayMs)
        this.add('hardware', `board ${address} answers after ${now.replyDelayMs} ms`);
    }
    this.boards = boards;
  }

  private newEvents(): void {
    const events = this.locker.events;
    for (const e of events.slice(this.eventsSeen)) {
      let where = 'kept in the outbox (no cloud link)';
      if (this.cloudLinked) {
        this.unacked.set(e.eventId, e);
        where = this.networkCut ? 'kept in the outbox until the network is back' : 'sent to the cloud';
      }
      this.add('event', `${describeEvent(e)}: ${where}`);
    }
    this.eventsSeen = events.length;
  }

  /** An event that left the outbox was acknowledged by the cloud; a new sync version means new orders. */
  private askOutbox(): void {
    const now = this.options.clock.now().getTime();
    if (!this.cloudLinked || this.outboxBusy || now - this.outboxAt < (this.options.outboxEveryMs ?? 250)) return;
    const agent = this.agent;
    if (!agent) return;
    this.outboxBusy = true;
    this.outboxAt = now;
    // Only what was waiting before asking: an event sent meanwhile is not in this answer.
    const asked = [...this.unacked.keys()];
    void Promise.all([asked.length ? agent.pendingEvents() : undefined, agent.syncVersion()])
      .then(([pending, version]) => {
        if (agent !== this.agent) return;
        if (pending) {
          const still = new Set(pending.map((e) => e.eventId));
          for (const id of asked) {
            const e = this.unacked.get(id);
            if (!e || still.has(id)) continue;
            this.unacked.delete(id);
            this.add('ack', `${describeEvent(e)}: acknowledged by the cloud, out of the outbox`);
          }
        }
        if (this.syncVersion !== undefined && version !== this.syncVersion)
          this.add('sync', `orders from the cloud: sync version ${this.syncVersion} → ${version}`);
        this.syncVersion = version;
      })
      // A restarting agent answers nothing: the next round asks the new one.
      .catch(() => undefined)
      .finally(() => (this.outboxBusy = false));
  }
}

/** An event in words; a rejected code shows only its mask, as the agent sent it. */
export function describeEvent(e: LockerEvent): string {
  const parts: string[] = [e.type];
  if (e.orderId) parts.push(`order ${e.orderId}`);
  if (e.cellId) parts.push(`cell ${e.cellId}`);
  if (e.maskedCode) parts.push(`code ${e.maskedCode}`);
  if (e.reason) parts.push(e.reason);
  if (e.fault) parts.push(e.fault);
  if (e.until) parts.push(`until ${e.until}`);
  if (e.commandId) parts.push(`command ${e.commandId}`);
  return parts.join(' ');
}
