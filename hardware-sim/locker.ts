import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { CellSize, LockerEvent } from '../shared/mqtt/index.ts';
import { openSerialLink, type SerialPortLink } from '../locker-agent/boards/serial-link.ts';
import { parseConfig, type AgentConfig, type CellConfig } from '../locker-agent/config.ts';
import type { Clock } from '../locker-agent/clock.ts';
import { ChildAgent, InProcessAgent, type AgentHandle, type AgentSink } from './agent-handle.ts';
import { SimBoard } from './board.ts';
import { SimBus } from './bus.ts';
import { createLinkPair } from './memory-link.ts';
import { createPtyPair, type PtyPair } from './pty.ts';

export type Transport = 'memory' | 'pty';

export interface SimLockerOptions {
  id: string;
  boards: number[];
  cells: CellConfig[];
  /** Where the agent keeps its store (and, for ptys, where the links live). */
  dir: string;
  /** memory: in-process agent over in-memory links. pty: socat pseudo-terminals. */
  transport: Transport;
  /** With ptys, run `npm run agent` as a child process (default) or inside this process. */
  agentMode?: 'child' | 'inprocess';
  unlockTimeMs?: number;
  /** Clock for an in-process agent (tests move time forward with it). */
  clock?: Clock;
  /** Overrides of the agent config (timing, serial timeouts) - tests use short ones. */
  agentConfig?: Record<string, unknown>;
  /** Receives every log line of the agent, in-process or child, across restarts. */
  onAgentLog?: (line: string) => void;
}

/** One simulated locker: its boards on a bus, its keypad, and the agent that drives them. */
export class SimLocker {
  readonly boards = new Map<number, SimBoard>();
  readonly displayLines: string[] = [];
  readonly events: LockerEvent[] = [];
  agent!: AgentHandle;
  bus!: SimBus;
  private ptys: PtyPair[] = [];
  private simPorts: SerialPortLink[] = [];
  private keypadWrite!: (line: string) => Promise<void>;
  private readonly listeners: ((line: string) => void)[] = [];
  private syncVersion = 1;

  constructor(readonly options: SimLockerOptions) {
    for (const address of options.boards)
      this.boards.set(address, new SimBoard({ address, unlockTimeMs: options.unlockTimeMs ?? 50 }));
  }

  get id(): string {
    return this.options.id;
  }

  async start(): Promise<void> {
    mkdirSync(this.options.dir, { recursive: true });
    if (this.options.transport === 'pty') await this.openPtys();
    await this.startAgent();
  }

  /** The agent config the simulator hands to the agent for this locker. */
  agentConfig(): AgentConfig {
    const pty = this.options.transport === 'pty';
    const base: Record<string, unknown> = {
      lockerId: this.id,
      serial: {
        device: pty ? this.ptys[0].agentPath : 'memory',
        replyTimeoutMs: 200,
        readRetries: 1,
        pollIntervalMs: 30,
      },
      boards: this.options.boards,
      cells: this.options.cells,
      keypad: { device: pty ? this.ptys[1].agentPath : 'memory' },
      dataDir: join(this.options.dir, 'data'),
      timing: {
        unlockConfirmMs: 2000,
        doorOpenAlarmMs: 30_000,
        wrongCodeLimit: 5,
        wrongCodeWindowMs: 60_000,
        lockoutMs: 60_000,
      },
    };
    return parseConfig(mergeConfig(base, this.options.agentConfig ?? {}));
  }

  private async openPtys(): Promise<void> {
    this.ptys = [await createPtyPair(this.options.dir, 'bus'), await createPtyPair(this.options.dir, 'keypad')];
    const bus = await openSerialLink(this.ptys[0].simPath, 19200);
    const keypad = await openSerialLink(this.ptys[1].simPath, 9600);
    this.simPorts = [bus.link, keypad.link];
    this.bus = new SimBus(bus.link, this.boards);
    this.bus.attach();
    this.keypadWrite = (line) => keypad.link.write(Buffer.from(line));
  }

  private async startAgent(): Promise<void> {
    const config = this.agentConfig();
    const sink: AgentSink = {
      display: (line) => {
        this.displayLines.push(line);
        if (this.displayLines.length > 200) this.displayLines.shift();
        for (const fn of this.listeners) fn(line);
      },
      event: (e) => this.events.push(e),
      log: this.options.onAgentLog,
    };
    if (this.options.transport === 'memory') {
      // A fresh cable per agent start, as if the agent process had reopened its ports.
      const [agentEnd, simEnd] = createLinkPair();
      const keypad = new PassThrough();
      this.bus = new SimBus(simEnd, this.boards);
      this.bus.attach();
      this.keypadWrite = async (line) => void keypad.write(line);
      this.agent = await InProcessAgent.start(config, { bus: agentEnd, keypad }, sink, this.options.clock);
    } else if (this.options.agentMode === 'inprocess') {
      this.agent = await InProcessAgent.start(config, 'pty', sink, this.options.clock);
    } else {
      this.agent = await ChildAgent.start(config, join(this.options.dir, 'agent.json'), sink);
    }
  }

  /** Restart the agent; `kill` ends it without any cleanup (SIGKILL for a child process). */
  async restartAgent(opts: { kill?: boolean } = {}): Promise<void> {
    await (opts.kill ? this.agent.kill() : this.agent.stop());
    await this.startAgent();
  }

  /** Versions for sync messages the simulator makes up (the fleet's initial orders are 1). */
  nextSyncVersion(): number {
    return ++this.syncVersion;
  }

  /** Calls `fn` with every line the agent shows; returns a function that stops it. */
  onDisplay(fn: (line: string) => void): () => void {
    this.listeners.push(fn);
    return () => {
      const i = this.listeners.indexOf(fn);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  lastDisplay(): string | undefined {
    return this.displayLines[this.displayLines.length - 1];
  }

  /** Types a code on the keypad, as the keypad board sends it. */
  async typeCode(code: string): Promise<void> {
    await this.keypadWrite(`${code}\r\n`);
  }

  /**
   * Types a code and resolves with the first line the agent shows after it (its answer: a
   * cell opened, a wrong code, an unpaid order...), or undefined when none comes within
   * `waitMs`. The agent answers codes one at a time, so the first line is this code's.
   */
  async typeCodeForAnswer(code: string, waitMs: number): Promise<string | undefined> {
    let stop = () => {};
    const answer = new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), waitMs);
      stop = this.onDisplay((line) => {
        clearTimeout(timer);
        resolve(line);
      });
    });
    try {
      await this.typeCode(code);
      return await answer;
    } finally {
      stop();
    }
  }

  cell(cellId: string): { cell: CellConfig; board: SimBoard } {
    const cell = this.options.cells.find((c) => c.cellId === cellId);
    if (!cell) throw new SimError(404, `no cell ${cellId} in locker ${this.id}`);
    return { cell, board: this.board(cell.board) };
  }

  board(address: number): SimBoard {
    const board = this.boards.get(address);
    if (!board) throw new SimError(404, `no board ${address} in locker ${this.id}`);
    return board;
  }

  /** Put a parcel in / take it out: only possible while the door is open. */
  setParcel(cellId: string, present: boolean): void {
    const { cell, board } = this.cell(cellId);
    const lock = board.lock(cell.lock);
    if (lock.closed) throw new SimError(409, `door of cell ${cellId} is closed`);
    lock.parcel = present;
  }

  closeDoor(cellId: string): void {
    const { cell, board } = this.cell(cellId);
    board.lock(cell.lock).closed = true;
  }

  /** The door pulled open with no unlock (a crowbar, or a latch that let go): what tamper alerts catch. */
  forceDoor(cellId: string): void {
    const { cell, board } = this.cell(cellId);
    board.lock(cell.lock).closed = false;
  }

  /** The hook switch reads `stuck` (false: open) whatever the door does; null: it works again. */
  setHookStuck(cellId: string, stuck: boolean | null): void {
    const { cell, board } = this.cell(cellId);
    board.lock(cell.lock).hookStuck = stuck ?? undefined;
  }

  setJammed(cellId: string, jammed: boolean): void {
    const { cell, board } = this.cell(cellId);
    board.lock(cell.lock).jammed = jammed;
  }

  /** What the hardware itself says (not what the agent believes). */
  hardwareCells(): {
    cellId: string;
    size: CellSize;
    board: number;
    lock: number;
    doorClosed: boolean;
    parcel: boolean;
    jammed: boolean;
  }[] {
    return this.options.cells.map((c) => {
      const l = this.board(c.board).lock(c.lock);
      return {
        cellId: c.cellId,
        size: c.size,
        board: c.board,
        lock: c.lock,
        doorClosed: l.closed,
        parcel: l.parcel,
        jammed: l.jammed,
      };
    });
  }

  async close(): Promise<void> {
    await this.agent?.stop().catch(() => undefined);
    for (const b of this.boards.values()) b.close();
    for (const p of this.simPorts) await p.close().catch(() => undefined);
    for (const p of this.ptys) await p.close();
  }
}

/** An error the control API turns into an HTTP status. */
export class SimError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Overrides replace top-level values but merge into the serial/keypad/timing sections. */
function mergeConfig(base: Record<string, unknown>, overrides: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const prev = out[key];
    const both =
      typeof prev === 'object' &&
      prev !== null &&
      !Array.isArray(prev) &&
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value);
    out[key] = both ? { ...(prev as object), ...(value as object) } : value;
  }
  return out;
}
