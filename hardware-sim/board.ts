import { KerongStatus, LOCKS_PER_BOARD } from '../shared/protocols/kerong/index.ts';

export interface SimLock {
  /** Hook closed: the door is shut and latched. */
  closed: boolean;
  parcel: boolean;
  /** The latch ignores unlock pulses (the board still answers). */
  jammed: boolean;
  /**
   * The hook switch reports this whatever the door does (a broken or misaligned switch); absent
   * = it reports the door as it is. `false`: reads open even with the door shut.
   */
  hookStuck?: boolean;
}

export interface SimBoardOptions {
  address: number;
  /** Time between the unlock pulse and the hook reading open. */
  unlockTimeMs: number;
  /** Extra delay before each reply (a slow board). */
  replyDelayMs?: number;
}

/** One Kerong KR-CU16: 16 locks with a hook switch and an IR parcel sensor each. */
export class SimBoard {
  readonly locks: SimLock[] = Array.from({ length: LOCKS_PER_BOARD }, () => ({
    closed: true,
    parcel: false,
    jammed: false,
  }));
  /** A board that does not answer at all (power, wiring, address conflict). */
  silent = false;
  /** Replies go out with a wrong checksum (noise on a long or unterminated bus). */
  corruptReplies = false;
  replyDelayMs: number;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(readonly options: SimBoardOptions) {
    this.replyDelayMs = options.replyDelayMs ?? 0;
  }

  get address(): number {
    return this.options.address;
  }

  lock(n: number): SimLock {
    const lock = this.locks[n - 1];
    if (!lock) throw new RangeError(`lock ${n} outside 1-16`);
    return lock;
  }

  status(lockInAddr = 1): KerongStatus {
    return new KerongStatus(
      this.address,
      this.locks.map((l) => l.hookStuck ?? l.closed),
      this.locks.map((l) => l.parcel),
      lockInAddr,
    );
  }

  /** The bytes this board puts on the wire for a reply. */
  reply(lockInAddr = 1): Buffer {
    const buf = this.status(lockInAddr).toBuffer();
    if (this.corruptReplies) buf[buf.length - 1] ^= 0x5a;
    return buf;
  }

  /** The door springs open once the latch has released, unless it is jammed. */
  unlock(n: number): void {
    const lock = this.lock(n);
    if (lock.jammed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      lock.closed = false;
    }, this.options.unlockTimeMs);
    this.timers.add(timer);
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
