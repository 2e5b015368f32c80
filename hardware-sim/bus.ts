import { KerongCommand, KerongParser, KerongRequest, type KerongFrame } from '../shared/protocols/kerong/index.ts';
import type { SerialLink } from '../locker-agent/boards/serial-link.ts';
import type { SimBoard } from './board.ts';

/**
 * The RS-485 side of the simulator: reads requests off the link and lets the addressed board
 * answer with the same bytes a real KR-CU16 sends (see shared/protocols/kerong).
 */
export class SimBus {
  private readonly parser = new KerongParser();
  readonly requests: KerongRequest[] = [];
  /** Observers of each request as it arrives (tests wait for an unlock frame here). */
  readonly onRequest: ((req: KerongRequest) => void)[] = [];
  /**
   * Second boards set to an address already taken (a DIP-switch mistake): both answer at once.
   * The wire then carries neither reply; it is modelled as the bitwise AND of the two (a driver
   * pulling a bit low wins), which breaks the checksum unless both boards read the same.
   */
  readonly clashing = new Map<number, SimBoard>();
  /**
   * A request that arrives sooner than this after the last reply is not heard: the answering
   * board's RS-485 driver is still switching back to receive (why the agent keeps a frame gap).
   */
  turnaroundMs = 0;
  private lastReplyAt = 0;

  constructor(
    private readonly link: SerialLink,
    readonly boards: Map<number, SimBoard>,
  ) {}

  attach(): void {
    this.link.onData((chunk) => this.parser.write(chunk));
    this.parser.on('data', (frame: KerongFrame) => {
      if (frame instanceof KerongRequest) this.handle(frame);
    });
  }

  private handle(req: KerongRequest): void {
    this.requests.push(req);
    if (this.requests.length > 1000) this.requests.splice(0, 500);
    for (const fn of this.onRequest) fn(req);
    if (this.turnaroundMs > 0 && Date.now() - this.lastReplyAt < this.turnaroundMs) return;
    const answering = [this.boards.get(req.board), this.clashing.get(req.board)].filter(
      (b): b is SimBoard => b !== undefined && !b.silent,
    );
    const board = answering[0];
    if (!board) return;
    const lockInAddr = req.cmd === KerongCommand.Unlock ? req.lock : 1;
    for (const b of answering) if (req.cmd === KerongCommand.Unlock) b.unlock(req.lock);
    const reply = () => {
      const frames = answering.filter((b) => !b.silent).map((b) => b.reply(lockInAddr));
      if (frames.length === 0) return;
      const wire = frames.reduce((acc, f) => Buffer.from(acc.map((byte, i) => byte & f[i])));
      this.lastReplyAt = Date.now();
      this.link.write(wire).catch(() => undefined);
    };
    if (board.replyDelayMs > 0) setTimeout(reply, board.replyDelayMs);
    else reply();
  }

  unlockCount(board: number, lock: number): number {
    return this.requests.filter((r) => r.cmd === KerongCommand.Unlock && r.board === board && r.lock === lock).length;
  }
}
