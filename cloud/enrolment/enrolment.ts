/**
 * Enrolment codes: issued by the operator for one locker, exchanged once by its agent for its
 * credentials and cell map. The exchange is one transaction: the code is marked used, the
 * locker's agent password replaced, and the answer built, or nothing changes at all.
 */
import type { EnrolmentRefusal, EnrolmentResponse } from '../../shared/enrolment.ts';
import type { Db } from '../storage/database.ts';
import { newId } from '../storage/ids.ts';
import { cellsWithBoardsAt } from '../storage/cell-queries.ts';
import {
  enrolmentByCodeHash,
  expireOpenEnrolments,
  insertEnrolment,
  takeEnrolment,
} from '../storage/enrolment-queries.ts';
import { getPostomat, resetAgentCredentials } from '../services/admin/postomats.ts';
import type { UnitOfWork } from '../services/unit-of-work.ts';
import { enrolmentCodeHash, newEnrolmentCode } from './codes.ts';

export const DEFAULT_ENROLMENT_MINUTES = 60;
export const MAX_ENROLMENT_MINUTES = 7 * 24 * 60;

export class EnrolmentRefused extends Error {
  constructor(readonly code: EnrolmentRefusal) {
    super(code);
    this.name = 'EnrolmentRefused';
  }
}

/** A new code for the locker; earlier unused codes of it stop working (one valid code at a time). */
export async function issueEnrolmentCode(
  uow: UnitOfWork,
  postomatId: string,
  minutes: number,
  now: Date,
): Promise<{ code: string; expiresAt: string }> {
  await getPostomat(uow.db, postomatId);
  const code = newEnrolmentCode();
  const expiresAt = new Date(now.getTime() + minutes * 60_000).toISOString();
  await uow.run(async (tx) => {
    await expireOpenEnrolments(tx.db, postomatId, now.toISOString());
    await insertEnrolment(tx.db, {
      id: newId(),
      postomatId,
      codeHash: enrolmentCodeHash(code),
      createdAt: now.toISOString(),
      expiresAt,
      usedAt: null,
    });
  });
  return { code, expiresAt };
}

/** `mqttUrl`: the broker as lockers reach it (AGENT_MQTT_URL, or the cloud's own). */
export async function exchangeEnrolmentCode(
  uow: UnitOfWork,
  normalisedCode: string,
  mqttUrl: string,
  now: Date,
): Promise<EnrolmentResponse> {
  return uow.run(async (tx) => {
    const row = await enrolmentByCodeHash(tx.db, enrolmentCodeHash(normalisedCode));
    if (!row) throw new EnrolmentRefused('ENROLMENT_CODE_UNKNOWN');
    if (row.usedAt !== null) throw new EnrolmentRefused('ENROLMENT_CODE_USED');
    if (row.expiresAt <= now.toISOString()) throw new EnrolmentRefused('ENROLMENT_CODE_EXPIRED');
    // Conditional: of two agents racing with the same code, one finds it taken.
    if (!(await takeEnrolment(tx.db, row.id, now.toISOString()))) throw new EnrolmentRefused('ENROLMENT_CODE_USED');
    const cells = await cellMapOf(tx.db, row.postomatId);
    if (cells.length === 0) throw new EnrolmentRefused('LOCKER_HAS_NO_CELLS');
    const { username, password } = await resetAgentCredentials(tx.db, row.postomatId, now);
    // The old password stops working: every running cloud forgets what it had verified.
    tx.after.credentialsRevoked();
    return { lockerId: row.postomatId, mqttUrl, username, password, cells };
  });
}

async function cellMapOf(db: Db, postomatId: string): Promise<EnrolmentResponse['cells']> {
  const rows = await cellsWithBoardsAt(db, postomatId);
  return rows.map((r) => ({
    cellId: String(r.number),
    board: Number(r.address),
    lock: Number(r.lock),
    size: r.size as EnrolmentResponse['cells'][number]['size'],
  }));
}
