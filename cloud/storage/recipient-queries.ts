/** Recipients: one row per phone number, shared by every order sent to it. */
import type { Db } from './database.ts';
import { newId } from './ids.ts';
import { prepared, preparedWrite } from './prepared.ts';

/**
 * The recipient of a phone, recorded on first use. The insert does nothing when the phone is on
 * record, so concurrent creations for one phone share a row; a new phone costs one statement,
 * a known one two.
 */
export async function recipientIdOf(db: Db, phone: string, now: string): Promise<string> {
  const inserted = await insertRecipient(db, newId(), phone, now);
  const id = inserted.rows[0]?.id ?? (await recipientOfPhone(db, phone))[0]?.id;
  if (!id) throw new Error('recipient not found after its insert');
  return id;
}

const insertRecipient = preparedWrite<[id: string, phone: string, now: string], { id: string }>(
  3,
  (db: Db, id, phone, now) =>
    db
      .insertInto('recipient')
      .values({ id, phone, createdAt: now, updatedAt: now })
      .onConflict((oc) => oc.column('phone').doNothing())
      .returning('id'),
);
const recipientOfPhone = prepared<[phone: string], { id: string }>(1, (db: Db, phone) =>
  db.selectFrom('recipient').select('id').where('phone', '=', phone),
);

// Read for every order event (events/record.ts): prepared.
const phoneById = prepared<[id: string], { phone: string }>(1, (db: Db, id) =>
  db.selectFrom('recipient').select('phone').where('id', '=', id),
);

export async function recipientPhone(db: Db, id: string) {
  const [row] = await phoneById(db, id);
  return row;
}
