/**
 * The broker's message queue (cloud/sync/fifo-queue.ts): first in, first out at any length, and
 * aedes' own emitter keeps delivering in order once its queues are replaced.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Aedes } from 'aedes';
import { FifoQueue, withFifoQueues } from '../../cloud/sync/fifo-queue.ts';

describe('FifoQueue', () => {
  it('gives items back in the order they came, across compactions, and undefined when empty', () => {
    const q = new FifoQueue<number>();
    assert.equal(q.shift(), undefined);
    let next = 0;
    let expected = 0;
    // Pushes and shifts interleaved, the queue growing to thousands and emptying again.
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < 3_000; i++) q.push(next++);
      for (let i = 0; i < 2_000; i++) assert.equal(q.shift(), expected++);
      assert.equal(q.length, next - expected);
    }
    while (q.length) assert.equal(q.shift(), expected++);
    assert.equal(expected, next);
    assert.equal(q.shift(), undefined);
    assert.equal(q.length, 0);
  });
});

describe("the broker's emitter with FIFO queues", () => {
  it('replaces the queues of an empty emitter, and refuses an emitter it does not know', async () => {
    const broker = await Aedes.createBroker({ concurrency: 1 });
    try {
      const mq = (broker as unknown as { mq: any }).mq;
      assert.equal(withFifoQueues(mq), true);
      assert.ok(mq._messageQueue instanceof FifoQueue);
      assert.equal(withFifoQueues({ _messageQueue: new Map() }), false, 'not arrays: left alone');
      assert.equal(withFifoQueues(undefined), false);
    } finally {
      await new Promise<void>((r) => broker.close(() => r()));
    }
  });

  it('delivers a backlog in order, one message at a time (concurrency 1), through the replaced queues', async () => {
    const broker = await Aedes.createBroker({ concurrency: 1 });
    try {
      const mq = (broker as unknown as { mq: any }).mq;
      withFifoQueues(mq);
      const got: number[] = [];
      let delivering = 0;
      let most = 0;
      await new Promise<void>((r) =>
        mq.on(
          'lockers/x/events',
          (message: { payload: number }, done: () => void) => {
            most = Math.max(most, ++delivering);
            setImmediate(() => {
              got.push(message.payload);
              delivering--;
              done();
            });
          },
          r,
        ),
      );
      const all = Array.from({ length: 5_000 }, (_, i) => i);
      await Promise.all(
        all.map((i) => new Promise<void>((r) => mq.emit({ topic: 'lockers/x/events', payload: i }, () => r()))),
      );
      assert.deepEqual(got, all, 'in the order emitted');
      assert.equal(most, 1, 'one in delivery at a time: the rest waited in the queue');
      assert.equal(mq._messageQueue.length, 0);
    } finally {
      await new Promise<void>((r) => broker.close(() => r()));
    }
  });
});
