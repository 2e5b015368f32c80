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
        const board = this.boards.get(req.board);
        if (!board || board.silent) return;
        if (req.cmd === KerongCommand.Unlock) board.unlock(req.lock);
        const reply = () => {
            if (board.silent) return;
            this.link.write(board.status(req.cmd === KerongCommand.Unlock ? req.lock : 1).toBuffer()).catch(() => undefined);
        };
        if (board.replyDelayMs > 0) setTimeout(reply, board.replyDelayMs);
        else reply();
    }

    unlockCount(board: number, lock: number): number {
        return this.requests.filter((r) => r.cmd === KerongCommand.Unlock && r.board === board && r.lock === lock).length;
    }
}
