/** One-time enrolment codes of lockers (`locker_enrolment`); the rules are cloud/enrolment/enrolment.ts's. */
import type { Db } from './database.ts';
import type { LockerEnrolmentTable } from './enrolment-schema.ts';

/** Ends the locker's codes not used yet, so only the newest one works. */
export async function expireOpenEnrolments(db: Db, postomatId: string, now: string): Promise<void> {
  await db
    .updateTable('locker_enrolment')
    .set({ expiresAt: now })
    .where('postomatId', '=', postomatId)
    .where('usedAt', 'is', null)
    .where('expiresAt', '>', now)
    .execute();
}

export async function insertEnrolment(db: Db, row: LockerEnrolmentTable): Promise<void> {
  await db.insertInto('locker_enrolment').values(row).execute();
}

export function enrolmentByCodeHash(db: Db, codeHash: string) {
  return db.selectFrom('locker_enrolment').selectAll().where('codeHash', '=', codeHash).executeTakeFirst();
}

/** Marks the code used; false when another agent took it first. */
export async function takeEnrolment(db: Db, id: string, now: string): Promise<boolean> {
  const taken = await db
    .updateTable('locker_enrolment')
    .set({ usedAt: now })
    .where('id', '=', id)
    .where('usedAt', 'is', null)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}
