/**
 * What the broker refused, counted and told without flooding the log: a flood refused one
 * socket at a time must not become a flood of log lines. The first refusal after a quiet
 * interval is logged at once, with its details; the ones that follow within `intervalMs` are
 * counted and summed up in one line at the end of the interval (by reason, with the addresses
 * that were refused most). The totals since start are the broker's refusal counters.
 */
import type { Logger } from '../logger.ts';

export const BROKER_REFUSALS = [
  /** the broker holds MQTT_MAX_CONNECTIONS sockets already */
  'connection-cap',
  /** the address holds MQTT_MAX_CONNECTIONS_PER_ADDRESS sockets already */
  'address-cap',
  /** no complete CONNECT within MQTT_CONNECT_TIMEOUT_MS */
  'connect-timeout',
  /** a packet announced larger than allowed (or a malformed length) */
  'oversized-packet',
  /** wrong credentials, or a client id that is not the locker's own */
  'bad-login',
  /** a CONNECT from an address that has used up its failed logins */
  'login-backoff',
  /** a publish outside the client's own topics (its connection is closed) */
  'publish-denied',
  /** a subscription outside the client's own topics (SUBACK 0x80) */
  'subscribe-denied',
] as const;
export type BrokerRefusal = (typeof BROKER_REFUSALS)[number];

/** Addresses named in a summary, and tracked per interval (a flood from many addresses costs no more). */
const TOP_ADDRESSES = 5;
const TRACKED_ADDRESSES = 1_000;

const zero = () => Object.fromEntries(BROKER_REFUSALS.map((r) => [r, 0])) as Record<BrokerRefusal, number>;

export class RefusalLog {
  /** refusals since the broker started, by reason */
  readonly totals = zero();
  private pending = zero();
  private pendingCount = 0;
  private readonly pendingAddresses = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = 60_000,
  ) {}

  note(reason: BrokerRefusal, address: string, detail: Record<string, unknown> = {}): void {
    this.totals[reason]++;
    if (!this.timer) {
      this.logger.warn('mqtt refused', { reason, address, ...detail });
      this.timer = setTimeout(() => this.flush(), this.intervalMs).unref();
      return;
    }
    this.pending[reason]++;
    this.pendingCount++;
    const seen = this.pendingAddresses.get(address);
    if (seen !== undefined) this.pendingAddresses.set(address, seen + 1);
    else if (this.pendingAddresses.size < TRACKED_ADDRESSES) this.pendingAddresses.set(address, 1);
  }

  /** Stops the interval; what was counted in it is logged now. */
  close(): void {
    clearTimeout(this.timer);
    this.flush(false);
  }

  private flush(again = true): void {
    this.timer = undefined;
    if (this.pendingCount === 0) return;
    const byReason = Object.fromEntries(Object.entries(this.pending).filter(([, n]) => n > 0));
    const addresses = [...this.pendingAddresses]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP_ADDRESSES)
      .map(([address, count]) => ({ address, count }));
    this.logger.warn('mqtt refused more', {
      count: this.pendingCount,
      seconds: Math.round(this.intervalMs / 1000),
      byReason,
      addresses,
    });
    this.pending = zero();
    this.pendingCount = 0;
    this.pendingAddresses.clear();
    if (again) this.timer = setTimeout(() => this.flush(), this.intervalMs).unref();
  }
}
