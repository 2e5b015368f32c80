import { KerongParser, KerongRequest, KerongStatus, type KerongFrame } from '../../shared/protocols/kerong/index.ts';
import { sleep, type Clock } from '../clock.ts';
import type { SerialLink } from './serial-link.ts';
import { LockBus, type BoardStatus, type UnlockResult } from './lock-bus.ts';
import { TimeoutError, Waitress } from './waitress.ts';

export interface KerongBusOptions {
  boards: readonly number[];
  /** A 9-byte reply takes ~5 ms at 19200 baud; boards stay busy for a while after an unlock. */
  replyTimeoutMs: number;
  /** Extra attempts for a status read (never for an unlock). */
  readRetries: number;
  /** Pause between two rounds of status reads over all boards. */
  pollIntervalMs: number;
  /**
   * Quiet time on the bus between the end of one transaction (reply or timeout) and the next
   * request. Field lesson: a board that is still switching its RS-485 driver back to receive
   * misses a request sent right after its reply, and two replies back to back time out.
   */
  frameGapMs?: number;
}

/** Counters of one board since the agent started (health reports and `agent scan`). */
export interface BoardCounters {
  board: number;
  /** Requests the board did not answer within replyTimeoutMs. */
  timeouts: number;
  /** Replies dropped for a bad ETX or checksum while this board was asked. */
  checksumErrors: number;
  /** Last valid reply, ms since the epoch (undefined: never answered). */
  lastAnswerAt?: number;
}

interface Job {
  run: () => Promise<unknown>;
  resolve: (value: any) => void;
  reject: (err: unknown) => void;
}

/**
 * Kerong KR-CU16 boards sharing one RS-485 bus. The bus is half duplex and the boards answer
 * only when asked, so there is exactly one transaction in flight; unlocks wait in their own
 * queue that is always served before status polls, to keep a person at the keypad waiting as
 * little as possible.
 */
export class KerongBus extends LockBus {
  private readonly parser = new KerongParser();
  private readonly waitress: Waitress<KerongStatus>;
  private readonly unlocks: Job[] = [];
  private readonly reads: Job[] = [];
  private readonly online = new Map<number, boolean>();
  private readonly latest = new Map<number, BoardStatus>();
  private readonly counters = new Map<number, BoardCounters>();
  /** The board of the transaction in flight: a corrupt frame is counted against it. */
  private asked: number | undefined;
  private quietSince = 0;
  private busy = false;
  private running = false;
  private pollLoop: Promise<void> | undefined;

  constructor(
    private readonly link: SerialLink,
    private readonly clock: Clock,
    private readonly options: KerongBusOptions,
  ) {
    super();
    this.waitress = new Waitress(clock);
  }

  get boards(): readonly number[] {
    return this.options.boards;
  }

  /** Wire the link to the parser; call once, before any command. */
  attach(): void {
    this.link.onData((chunk) => this.parser.write(chunk));
    this.parser.on('data', (frame: KerongFrame) => {
      if (frame instanceof KerongStatus) this.waitress.resolve(frame);
    });
    this.parser.on('corrupt', () => {
      if (this.asked !== undefined) this.countersOf(this.asked).checksumErrors++;
    });
  }

  /** Timeouts and checksum errors per board, for every board asked so far. */
  boardCounters(): BoardCounters[] {
    return [...this.counters.values()].sort((a, b) => a.board - b.board).map((c) => ({ ...c }));
  }

  /**
   * Longest time between a board falling silent and `boardOffline` (unlocks aside, which jump
   * the queue): it may fall silent just after its read, so the rest of that round, a poll
   * pause, and the next round up to and including its own retries, where in the worst case
   * every board's reads time out, each after the gap. Stated in docs/field-technicians.md.
   */
  offlineDetectionBoundMs(): number {
    const o = this.options;
    const perRead = o.replyTimeoutMs + (o.frameGapMs ?? 0);
    return o.pollIntervalMs + o.boards.length * (1 + o.readRetries) * perRead * 2;
  }

  private countersOf(board: number): BoardCounters {
    let c = this.counters.get(board);
    if (!c) this.counters.set(board, (c = { board, timeouts: 0, checksumErrors: 0 }));
    return c;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.pollLoop = this.poll();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.pollLoop;
  }

  isOnline(board: number): boolean {
    return this.online.get(board) === true;
  }

  lastStatus(board: number): BoardStatus | undefined {
    return this.isOnline(board) ? this.latest.get(board) : undefined;
  }

  unlock(board: number, lock: number): Promise<UnlockResult> {
    return this.enqueue(this.unlocks, async () => {
      try {
        const reply = await this.transaction(KerongRequest.unlock(board, lock));
        this.accept(reply);
        return { ok: true } as UnlockResult;
      } catch (err) {
        if (!(err instanceof TimeoutError)) throw err;
        // Do not resend: a second pulse could open a door someone just closed.
        return { ok: false, reason: 'NO_REPLY' } as UnlockResult;
      }
    });
  }

  readStatus(board: number): Promise<BoardStatus | undefined> {
    return this.enqueue(this.reads, () => this.readWithRetries(board));
  }

  private async readWithRetries(board: number): Promise<BoardStatus | undefined> {
    // A board already known silent gets one attempt, so it does not hog the bus.
    const attempts = this.online.get(board) === false ? 1 : 1 + this.options.readRetries;
    for (let i = 0; i < attempts; i++) {
      try {
        return this.accept(await this.transaction(KerongRequest.readStatus(board)));
      } catch (err) {
        if (!(err instanceof TimeoutError)) throw err;
      }
    }
    if (this.online.get(board) !== false) {
      this.online.set(board, false);
      this.emit('boardOffline', board);
    }
    return undefined;
  }

  private accept(reply: KerongStatus): BoardStatus {
    this.countersOf(reply.board).lastAnswerAt = this.clock.now();
    const status: BoardStatus = {
      board: reply.board,
      closed: reply.closed,
      parcel: reply.parcel,
      at: this.clock.now(),
    };
    this.latest.set(reply.board, status);
    if (this.online.get(reply.board) !== true) {
      this.online.set(reply.board, true);
      this.emit('boardOnline', reply.board);
    }
    this.emit('status', status);
    return status;
  }

  private async transaction(request: KerongRequest): Promise<KerongStatus> {
    const gap = this.options.frameGapMs ?? 0;
    const wait = this.quietSince + gap - this.clock.now();
    if (gap > 0 && wait > 0) await sleep(this.clock, wait);
    // A late reply to an earlier, timed-out request must not be taken for this one.
    await this.link.flushInput();
    this.parser.reset();
    this.asked = request.board;
    const reply = this.waitress.waitFor(
      (f) => f.board === request.board,
      this.options.replyTimeoutMs,
      `board ${request.board}`,
    );
    // The timeout may fire while the write is still draining (a loaded machine), or the
    // write may fail (port closing): the reply's rejection must not go unobserved meanwhile.
    reply.catch(() => undefined);
    try {
      await this.link.write(request.toBuffer());
      return await reply;
    } catch (err) {
      if (err instanceof TimeoutError) this.countersOf(request.board).timeouts++;
      throw err;
    } finally {
      this.asked = undefined;
      this.quietSince = this.clock.now();
    }
  }

  private enqueue<T>(queue: Job[], run: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      queue.push({ run, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.busy) return;
    const job = this.unlocks.shift() ?? this.reads.shift();
    if (!job) return;
    this.busy = true;
    job
      .run()
      .then(job.resolve, job.reject)
      .finally(() => {
        this.busy = false;
        this.pump();
      });
  }

  private async poll(): Promise<void> {
    while (this.running) {
      for (const board of this.options.boards) {
        if (!this.running) return;
        await this.readStatus(board).catch(() => undefined);
      }
      await sleep(this.clock, this.options.pollIntervalMs);
    }
  }
}
