/** Retention now rather than at the cloud's next run (docs/retention.md). */
import { defineCommand, OperatorError, type Command } from '../command.ts';
import { flagsOf } from '../flags.ts';
import { table } from '../format.ts';
import { ConfigError, loadRetentionConfig } from '../../config.ts';
import { silentLogger } from '../../logger.ts';
import { RetentionPruner, retentionOptions } from '../../retention/pruner.ts';
import { LOCKER_IDEMPOTENCY_WINDOW_MS } from '../../services/idempotency.ts';

const DAY_MS = 86_400_000;
const keptFor = (ms: number) =>
  ms % DAY_MS === 0 ? `${ms / DAY_MS} days` : `${ms / 3_600_000} hour${ms === 3_600_000 ? '' : 's'}`;

export const commands: Command[] = [
  defineCommand({
    name: 'retention run',
    summary:
      'delete finished rows past their retention window now (the cloud does it every RETENTION_INTERVAL_MS) and print how many',
    usage: ['the windows come from the RETENTION_* variables, as for the cloud (docs/retention.md)'],
    flags: flagsOf({}),
    async run(ctx) {
      let config: ReturnType<typeof loadRetentionConfig>;
      try {
        config = loadRetentionConfig(process.env);
      } catch (err) {
        if (err instanceof ConfigError) throw new OperatorError(err.message);
        throw err;
      }
      const options = retentionOptions(config);
      const counts = await new RetentionPruner(
        { db: ctx.db, clock: ctx.clock, logger: silentLogger },
        options,
      ).runOnce();
      const rows = [
        { rows: 'outbox events (sent, failed, skipped)', pruned: counts.outboxEvents, kept: keptFor(options.outboxMs) },
        { rows: 'locker events', pruned: counts.lockerEvents, kept: keptFor(options.lockerEventsMs) },
        { rows: 'staff commands (answered, expired)', pruned: counts.commands, kept: keptFor(options.commandsMs) },
        { rows: 'marketplace idempotency keys', pruned: counts.idempotencyKeys, kept: keptFor(options.idempotencyMs) },
        {
          rows: 'Locker API idempotency keys',
          pruned: counts.lockerIdempotencyKeys,
          kept: keptFor(LOCKER_IDEMPOTENCY_WINDOW_MS),
        },
        {
          rows: 'webhook subscription events (deliveries finished)',
          pruned: counts.webhookEvents,
          kept: keptFor(options.outboxMs),
        },
        {
          rows: 'sync changes of orders no longer held',
          pruned: counts.syncChanges,
          kept: keptFor(options.syncChangesMs),
        },
      ];
      const text = `${table(rows, ['rows', 'pruned', 'kept'])}\nlockers whose sync floor rose (an agent older than it gets a full snapshot): ${counts.floorsRaised}`;
      return { json: counts, text };
    },
  }),
];
