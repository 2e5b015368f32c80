import { EventEmitter } from 'node:events';
import { spawn, type ChildProcess } from 'node:child_process';
import type { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { CellsMessage, LockerEvent, ResponseMessage } from '../shared/mqtt/index.ts';
import { AGENT_VERSION, LockerAgent } from '../locker-agent/agent.ts';
import { startAgentSync, type AgentSync } from '../locker-agent/sync.ts';
import type { SerialLink } from '../locker-agent/boards/serial-link.ts';
import { openSerialLink } from '../locker-agent/boards/serial-link.ts';
import type { AgentConfig } from '../locker-agent/config.ts';
import type { Log } from '../locker-agent/display.ts';
import type { Clock } from '../locker-agent/clock.ts';
import { LineKeypad, openKeypad } from '../locker-agent/keypad/keypad.ts';
import { writePrivateFile } from '../shared/private-files.ts';

export interface AgentHandleEvents {
  display: [string];
  event: [LockerEvent];
  /** New lines of the agent's log, as they are kept in `output`. */
  log: [string[]];
  exit: [];
}

/** What the simulator needs from a running agent, in-process or a child process. */
export interface AgentHandle extends EventEmitter<AgentHandleEvents> {
  readonly pid: number | undefined;
  /** The agent's recent log lines, oldest first (the last 250 to 500). */
  readonly output: string[];
  applySync(message: unknown): Promise<{ applied: boolean; version: number }>;
  command(message: unknown): Promise<ResponseMessage>;
  cells(): Promise<CellsMessage>;
  pendingEvents(): Promise<LockerEvent[]>;
  /** The version of the cloud's orders the agent's store holds. */
  syncVersion(): Promise<number>;
  /** Cut (false) or restore (true) the agent's cloud link; false when it has none. */
  setNetwork(online: boolean): Promise<boolean>;
  /** Graceful stop. */
  stop(): Promise<void>;
  /** Stop without any cleanup: SIGKILL for a child, an abandoned agent in-process. */
  kill(): Promise<void>;
}

/** The agent's own transports, as the in-process agent receives them. */
export interface InProcessTransport {
  bus: SerialLink;
  /** Byte stream of the keypad line device. */
  keypad: PassThrough;
}

/** Receives display lines and events from the first moment, before start() returns. */
export interface AgentSink {
  display(text: string): void;
  event(event: LockerEvent): void;
  /** Every log line of the agent, unbounded (tests search them for secrets). */
  log?(line: string): void;
}

const quietLog: Log = { info: () => {}, warn: () => {}, error: (m) => console.error(`[agent] ${m}`) };

/** Keeps the last lines of a log, as a technician would read them on the board. */
function keepLines(output: string[], lines: string[]): void {
  output.push(...lines);
  if (output.length > 500) output.splice(0, 250);
}

/** Keeps the agent's lines, and hands each to whoever listens: the simulator's page, a test's log capture. */
function recorded(log: Log, output: string[], heard: (lines: string[]) => void): Log {
  const at = (level: string, m: string) => {
    const lines = [`[${level}] ${m}`];
    keepLines(output, lines);
    heard(lines);
  };
  return {
    info: (m) => (at('info', m), log.info(m)),
    warn: (m) => (at('warn', m), log.warn(m)),
    error: (m) => (at('error', m), log.error(m)),
  };
}

/** Runs LockerAgent in this process, over in-memory links or over the pseudo-terminals. */
export class InProcessAgent extends EventEmitter<AgentHandleEvents> implements AgentHandle {
  readonly pid = undefined;
  private sync: AgentSync | undefined;
  private constructor(
    readonly agent: LockerAgent,
    readonly output: string[],
  ) {
    super();
  }

  static async start(
    config: AgentConfig,
    transport: InProcessTransport | 'pty',
    sink: AgentSink,
    clock?: Clock,
    log: Log = quietLog,
  ): Promise<InProcessAgent> {
    let handle: InProcessAgent | undefined;
    const display = {
      show: (text: string) => {
        sink.display(text);
        handle?.emit('display', text);
      },
    };
    const deps =
      transport === 'pty'
        ? {
            bus: (await openSerialLink(config.serial.device, config.serial.baudRate)).link,
            keypad: await openKeypad(config.keypad.device, config.keypad.baudRate),
          }
        : { bus: transport.bus, keypad: new LineKeypad(transport.keypad) };
    const output: string[] = [];
    const agentLog = recorded(log, output, (lines) => {
      handle?.emit('log', lines);
      for (const line of lines) sink.log?.(line);
    });
    const agent = new LockerAgent(config, { ...deps, display, log: agentLog, clock });
    handle = new InProcessAgent(agent, output);
    agent.on('event', (e) => {
      sink.event(e);
      handle.emit('event', e);
    });
    await agent.start();
    handle.sync = startAgentSync(agent, config, agentLog, AGENT_VERSION, clock);
    return handle;
  }

  async applySync(message: unknown) {
    return this.agent.applySync(message);
  }
  command(message: unknown) {
    return this.agent.handleCommand(message);
  }
  async cells() {
    return this.agent.cellsMessage();
  }
  async pendingEvents() {
    return this.agent.pendingEvents();
  }
  async syncVersion() {
    return this.agent.syncVersion();
  }
  async setNetwork(online: boolean) {
    await this.sync?.setNetwork(online);
    return this.sync !== undefined;
  }
  async stop() {
    await this.sync?.stop();
    await this.agent.stop();
    this.emit('exit');
  }
  /** In-process there is no SIGKILL: the cloud link drops like a crash (Last Will), then the agent stops. */
  async kill() {
    await this.sync?.setNetwork(false);
    await this.agent.stop();
    this.emit('exit');
  }
}

const MAIN = fileURLToPath(new URL('../locker-agent/main.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** `npm run agent` as a real child process over the pseudo-terminals, reached through IPC. */
export class ChildAgent extends EventEmitter<AgentHandleEvents> implements AgentHandle {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  private readonly exited: Promise<void>;
  readonly output: string[] = [];

  private constructor(
    private readonly proc: ChildProcess,
    sink: AgentSink,
  ) {
    super();
    this.exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    void this.exited.then(() => {
      for (const p of this.pending.values()) p.reject(new Error('agent exited'));
      this.pending.clear();
      this.emit('exit');
    });
    // A chunk may end inside a line: the rest waits for the next chunk of the same stream.
    const collect = (stream: NodeJS.ReadableStream | null) => {
      let rest = '';
      const take = (lines: string[]) => {
        const whole = lines.filter(Boolean);
        keepLines(this.output, whole);
        if (whole.length) this.emit('log', whole);
        for (const line of whole) sink.log?.(line);
      };
      stream?.on('data', (chunk: Buffer) => {
        const lines = (rest + chunk.toString()).split('\n');
        rest = lines.pop() ?? '';
        take(lines);
      });
      stream?.on('end', () => take([rest]));
    };
    collect(proc.stdout);
    collect(proc.stderr);
    proc.on('message', (msg: any) => {
      if (msg.type === 'display') {
        sink.display(msg.text);
        this.emit('display', msg.text);
      } else if (msg.type === 'event') {
        sink.event(msg.event);
        this.emit('event', msg.event);
      } else if (msg.type === 'reply') {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.ok) p?.resolve(msg.result);
        else p?.reject(new Error(msg.error));
      }
    });
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  static async start(config: AgentConfig, configPath: string, sink: AgentSink): Promise<ChildAgent> {
    // The config carries the locker's MQTT password.
    writePrivateFile(configPath, JSON.stringify(config, null, 2));
    const proc = spawn(process.execPath, ['--import', 'tsx', MAIN, '--config', configPath], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const child = new ChildAgent(proc, sink);
    await new Promise<void>((resolve, reject) => {
      proc.on('message', (msg: any) => msg.type === 'ready' && resolve());
      void child.exited.then(() =>
        reject(new Error(`agent exited during start:\n${child.output.slice(-20).join('\n')}`)),
      );
    });
    return child;
  }

  private request<T>(type: string, payload?: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.proc.send({ type, id, payload });
    });
  }

  applySync(message: unknown) {
    return this.request<{ applied: boolean; version: number }>('sync', message);
  }
  command(message: unknown) {
    return this.request<ResponseMessage>('command', message);
  }
  cells() {
    return this.request<CellsMessage>('cells');
  }
  pendingEvents() {
    return this.request<LockerEvent[]>('pending');
  }
  syncVersion() {
    return this.request<number>('syncVersion');
  }
  setNetwork(online: boolean) {
    return this.request<boolean>('network', online);
  }
  async stop() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGTERM');
    await this.exited;
  }
  async kill() {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
    await this.exited;
  }
}
