import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS } from '../helpers/storage.ts';
import { newId } from '../../cloud/storage/ids.ts';
import { useOperator } from './harness.ts';

const DAY = 86_400_000;

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] retention run`, () => {
    const op = useOperator(dialect);
    const sent = (daysAgo: number) => {
      const at = new Date(Date.now() - daysAgo * DAY).toISOString();
      return {
        id: newId(),
        kind: 'SMS' as const,
        event: 'PICKUP_CODE',
        orderId: null,
        target: '+996700000001',
        payload: '{}',
        secretHeader: null,
        state: 'SENT' as const,
        claimedBy: null,
        claimedUntil: null,
        httpStatus: 200,
        error: null,
        latencyMs: 3,
        createdAt: at,
        sentAt: at,
      };
    };

    it('prunes now and prints the counts; --json for scripts', async () => {
      await op
        .storage()
        .db.insertInto('outbox_event')
        .values([sent(45), sent(31), sent(2)])
        .execute();
      assert.deepEqual(await op.json('retention', 'run'), {
        outboxEvents: 2,
        lockerEvents: 0,
        commands: 0,
        idempotencyKeys: 0,
        lockerIdempotencyKeys: 0,
        webhookEvents: 0,
        eventAttempts: 0,
        resolvedAlarms: 0,
        syncChanges: 0,
        floorsRaised: 0,
      });
      const text = await op.run('retention', 'run');
      assert.equal(text.code, 0);
      assert.match(text.stdout, /^outbox events \(sent, failed, skipped\)\s+0\s+30 days$/m);
      assert.match(text.stdout, /^marketplace idempotency keys\s+0\s+1 hour$/m);
      assert.match(text.stdout, /sync floor rose .*: 0$/m);
      const left = await op.storage().db.selectFrom('outbox_event').select('id').execute();
      assert.equal(left.length, 1);
    });

    it('takes its windows from the RETENTION_* variables, and names a bad one', async () => {
      const saved = { ...process.env };
      try {
        process.env.RETENTION_OUTBOX_DAYS = '1';
        assert.equal((await op.json('retention', 'run')).outboxEvents, 1);
        process.env.RETENTION_BATCH = '0';
        assert.match(await op.fails(1, 'retention', 'run'), /RETENTION_BATCH must be >= 1/);
      } finally {
        for (const k of ['RETENTION_OUTBOX_DAYS', 'RETENTION_BATCH']) {
          if (saved[k] === undefined) delete process.env[k];
          else process.env[k] = saved[k];
        }
      }
    });
  });
}
