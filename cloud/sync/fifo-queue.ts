/**
 * A first-in first-out queue whose `shift` costs the same however long the queue is.
 *
 * aedes routes every message through mqemitter, which holds at most `concurrency` (100)
 * messages in delivery and queues the rest in two arrays it empties with `Array.shift`. On a
 * long array V8's shift moves every element, so once a backlog formed each message cost the
 * length of the backlog: at a whole country's peak (bench:peak, 10,000 lockers) the queue grew
 * while the cloud was busy, and 13 minutes after the load had stopped the broker still spent
 * 75% of a core in that shift, every sync message to a locker waiting behind it.
 */
export class FifoQueue<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): number {
    this.items.push(item);
    return this.length;
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    // The taken slots are dropped once they are half the array: amortised, each item is copied once.
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    } else if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    }
    return item;
  }
}

/** What aedes' mqemitter keeps its waiting messages in (mqemitter 7: arrays it pushes to and shifts). */
interface QueuedEmitter {
  _messageQueue: unknown;
  _messageCallbacks: unknown;
}

/**
 * Gives a broker's message emitter queues that shift in constant time. Done before any client
 * connects (the queues are empty then); returns false, changing nothing, if the emitter does
 * not keep its queues as mqemitter 7 does (a later version may have changed them).
 */
export function withFifoQueues(mq: unknown): boolean {
  const e = mq as Partial<QueuedEmitter> | undefined;
  const empty = (q: unknown) => Array.isArray(q) && q.length === 0;
  if (!e || !empty(e._messageQueue) || !empty(e._messageCallbacks)) return false;
  e._messageQueue = new FifoQueue();
  e._messageCallbacks = new FifoQueue();
  return true;
}
