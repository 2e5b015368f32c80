/**
 * Staff commands for a locker's agent as services queue them. Sending, answering and expiring
 * them is the locker link's (sync/commands.ts).
 */
import type { Db } from './database.ts';
import type { LockerCommandTable } from './locker-link-schema.ts';

/** The order's command in one of the `open` states that has not expired at `at`. */
export function openCommandOfOrder(db: Db, orderId: string, open: Array<LockerCommandTable['state']>, at: string) {
  return db
    .selectFrom('locker_command')
    .selectAll()
    .where('orderId', '=', orderId)
    .where('state', 'in', open)
    .where('expiresAt', '>', at)
    .executeTakeFirst();
}

export async function insertLockerCommand(db: Db, command: LockerCommandTable): Promise<void> {
  await db.insertInto('locker_command').values(command).execute();
}
