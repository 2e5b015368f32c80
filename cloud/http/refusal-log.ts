/**
 * Refusals of connections are logged without letting a flood flood the log: the first refusal
 * of a kind is one line at once, the ones after it are summed into one line per window.
 */
import type { Logger } from '../logger.ts';

interface Pending {
  count: number;
  addresses: Set<string>;
  timer?: NodeJS.Timeout;
}

/** How many distinct addresses a summary line names at most. */
const ADDRESSES_SHOWN = 5;

export class RefusalLog {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly logger: Logger,
    private readonly windowMs = 10_000,
  ) {}

  /** `what` is the log message ("http connection refused"), `reason` what was exceeded. */
  refused(what: string, reason: string, address: string, fields: Record<string, unknown> = {}): void {
    const key = `${what}\u0000${reason}`;
    const open = this.pending.get(key);
    if (open) {
      open.count++;
      if (open.addresses.size < ADDRESSES_SHOWN) open.addresses.add(address);
      return;
    }
    this.logger.warn(what, { reason, address, ...fields });
    const window: Pending = { count: 0, addresses: new Set() };
    window.timer = setTimeout(() => this.flush(key, what, reason, fields), this.windowMs);
    window.timer.unref();
    this.pending.set(key, window);
  }

  private flush(key: string, what: string, reason: string, fields: Record<string, unknown>): void {
    const window = this.pending.get(key);
    this.pending.delete(key);
    if (window?.count)
      this.logger.warn(`${what} (summary)`, {
        reason,
        count: window.count,
        windowMs: this.windowMs,
        addresses: [...window.addresses],
        ...fields,
      });
  }

  close(): void {
    for (const window of this.pending.values()) clearTimeout(window.timer);
    this.pending.clear();
  }
}
