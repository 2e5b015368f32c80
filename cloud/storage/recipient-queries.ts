/** Recipients: one row per phone number, shared by every order sent to it. */
import type { Db } from './database.ts';
import { newId } from './ids.ts';

/**
 * The recipient of a phone, recorded on first use. The insert does nothing when the phone is on
 * record, so concurrent creations for one phone share a row.
 */
export async function recipientIdOf(db: Db, phone: string, now: string): Promise<string> {
  await db
    .insertInto('recipient')
    .values({ id: newId(), phone, createdAt: now, updatedAt: now })
    .onConflict((oc) => oc.column('phone').doNothing())
    .execute();
  const recipient = await db.selectFrom('recipient').select('id').where('phone', '=', phone).executeTakeFirstOrThrow();
  return recipient.id;
}

export function recipientPhone(db: Db, id: string) {
  return db.selectFrom('recipient').select('phone').where('id', '=', id).executeTakeFirst();
}
