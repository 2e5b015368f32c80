/**
 * Places for connections to the embedded broker, in all and per client address. Every socket
 * holds a file descriptor from the moment it is accepted, logged in or not: about 20,000 idle
 * sockets once used up the process's descriptors and took the HTTP API down with the broker.
 * The table holds one entry per address with an open connection, so it is bounded by the cap.
 */
export type CapRefusal = 'connection-cap' | 'address-cap';

export class ConnectionCaps {
  private readonly byAddress = new Map<string, number>();
  private total = 0;

  /** `maxPerAddress` 0 switches the per-address cap off. */
  constructor(
    readonly maxTotal: number,
    readonly maxPerAddress: number,
  ) {}

  get open(): number {
    return this.total;
  }

  /** Takes a place for a connection from `address`, or names the cap that refuses it. */
  take(address: string): CapRefusal | undefined {
    if (this.total >= this.maxTotal) return 'connection-cap';
    const mine = this.byAddress.get(address) ?? 0;
    if (this.maxPerAddress > 0 && mine >= this.maxPerAddress) return 'address-cap';
    this.byAddress.set(address, mine + 1);
    this.total++;
    return undefined;
  }

  release(address: string): void {
    const mine = this.byAddress.get(address);
    if (!mine) return;
    if (mine === 1) this.byAddress.delete(address);
    else this.byAddress.set(address, mine - 1);
    this.total--;
  }
}
