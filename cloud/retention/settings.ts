/**
 * How long finished work is kept (docs/retention.md): the RETENTION_* variables, parsed with the
 * rest of the configuration (config.ts) and on their own by the operator's `retention run`.
 */
import { z } from 'zod';

export const days = (name: string, fallback: number) =>
  z.coerce
    .number({ error: `${name} must be a number of days` })
    .int(`${name} must be a whole number of days`)
    .min(1, `${name} must be >= 1`)
    .max(3650, `${name} must be <= 3650`)
    .default(fallback);

export const RETENTION_ENV = {
  RETENTION_OUTBOX_DAYS: days('RETENTION_OUTBOX_DAYS', 30),
  RETENTION_LOCKER_EVENTS_DAYS: days('RETENTION_LOCKER_EVENTS_DAYS', 30),
  RETENTION_COMMANDS_DAYS: days('RETENTION_COMMANDS_DAYS', 30),
  RETENTION_SYNC_CHANGES_DAYS: days('RETENTION_SYNC_CHANGES_DAYS', 30),
  RETENTION_INTERVAL_MS: z.coerce
    .number({ error: 'RETENTION_INTERVAL_MS must be a number' })
    .int()
    .min(0, 'RETENTION_INTERVAL_MS must be >= 0 (0 turns the pruner off)')
    .default(300_000),
  RETENTION_BATCH: z.coerce
    .number({ error: 'RETENTION_BATCH must be a number' })
    .int()
    .min(1, 'RETENTION_BATCH must be >= 1')
    .max(1000, 'RETENTION_BATCH must be <= 1000')
    .default(200),
};
export type RetentionConfig = z.infer<z.ZodObject<typeof RETENTION_ENV>>;
