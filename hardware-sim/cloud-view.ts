import type { OrderStatus, SyncOrder } from '../shared/mqtt/index.ts';

/** One order at a locker as the cloud holds it (never its codes). */
export interface CloudOrder {
  orderId: string;
  status: OrderStatus;
  /** The cell's number, once the parcel is placed. */
  cell: string | null;
  /** End of the storage period, once placed (ISO). */
  endDateTime: string | null;
  /** Unpaid remainder, minor units: the locker keeps the parcel until it is 0. */
  notPaidAmount: number;
  createdAt: string;
  /** Present on a return (the sender drops off, a courier collects); absent on a delivery. */
  kind?: 'RETURN';
}

/**
 * What the simulator may ask the cloud about its lockers, when it knows the cloud (`npm start`
 * runs both in one process and hands one in: scripts/sim-cloud-view.ts). The simulator does not
 * import the cloud: this port is all it sees of it.
 */
export interface CloudView {
  /** The locker as the cloud sees it; undefined when the cloud has no such locker. */
  locker(lockerId: string): Promise<{ online: boolean } | undefined>;
  /** The locker's orders, newest first. */
  orders(lockerId: string, limit: number): Promise<CloudOrder[]>;
  /** A test order for this locker (of a demo company), and its codes for the tester to type. */
  createTestOrder(lockerId: string, options: { pay: boolean }): Promise<{ orderId: string; codes: SyncOrder['codes'] }>;
}
