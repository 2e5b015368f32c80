import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { raw } from './types.ts';

/**
 * Webhook subscriptions of platform companies too (issue 22): a subscription and an event belong
 * to an owner, `ownerKind` LOCKER (a Locker API company, cuid2 id) or PLATFORM (a platform
 * company, integer id kept as text in `companyId`). The foreign key from `companyId` to
 * `locker_company` can no longer hold: it goes. PostgreSQL drops the constraint; SQLite cannot
 * drop one, so it rebuilds the subscription table and, as its deliveries point at it, the
 * delivery table (copied row for row, same indexes).
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') {
    await raw(db, 'alter table webhook_subscription drop constraint if exists "webhook_subscription_companyId_fkey"');
    await raw(db, `alter table webhook_subscription add column "ownerKind" text not null default 'LOCKER'`);
  } else {
    await raw(
      db,
      `create table webhook_subscription_027 (
      id text primary key, "ownerKind" text not null default 'LOCKER', "companyId" text not null, url text not null,
      "eventTypes" text not null, secret text not null, "previousSecret" text, "previousSecretUntil" text,
      "createdAt" text not null, "updatedAt" text not null, "deletedAt" text)`,
    );
    await raw(
      db,
      `insert into webhook_subscription_027 (id, "companyId", url, "eventTypes", secret, "previousSecret", "previousSecretUntil", "createdAt", "updatedAt", "deletedAt")
      select id, "companyId", url, "eventTypes", secret, "previousSecret", "previousSecretUntil", "createdAt", "updatedAt", "deletedAt" from webhook_subscription`,
    );
    await raw(
      db,
      `create table webhook_delivery_027 (
      id text primary key, "eventId" text not null, "subscriptionId" text not null references webhook_subscription_027 (id),
      state text not null, attempts integer not null default 0, "nextAttemptAt" text not null, "claimedBy" text, "claimedUntil" text,
      "lastStatus" integer, "lastError" text, "createdAt" text not null, "finishedAt" text)`,
    );
    await raw(
      db,
      'insert into webhook_delivery_027 select id, "eventId", "subscriptionId", state, attempts, "nextAttemptAt", "claimedBy", "claimedUntil", "lastStatus", "lastError", "createdAt", "finishedAt" from webhook_delivery',
    );
    // Children first: nothing points at the old tables when they go.
    await raw(db, 'drop table webhook_delivery');
    await raw(db, 'drop table webhook_subscription');
    // SQLite renames the delivery table's reference along with the table.
    await raw(db, 'alter table webhook_subscription_027 rename to webhook_subscription');
    await raw(db, 'alter table webhook_delivery_027 rename to webhook_delivery');
    await raw(db, 'create index webhook_delivery_due on webhook_delivery (state, "nextAttemptAt")');
    await raw(db, 'create index webhook_delivery_event on webhook_delivery ("eventId")');
  }
  await raw(db, 'drop index if exists webhook_subscription_company');
  await raw(
    db,
    'create index webhook_subscription_owner on webhook_subscription ("ownerKind", "companyId", "deletedAt")',
  );
  await raw(db, `alter table webhook_event add column "ownerKind" text not null default 'LOCKER'`);
  await raw(db, 'drop index if exists webhook_event_company');
  await raw(db, 'create index webhook_event_owner on webhook_event ("ownerKind", "companyId", id)');
}
