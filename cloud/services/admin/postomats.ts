/** Lockers with their boards and cells, and each locker's agent credentials. */
import crypto from 'node:crypto';
import type { Db } from '../../storage/database.ts';
import { newId } from '../../storage/ids.ts';
import { hashPassword, newPassword } from '../../domain/secrets.ts';
import { DomainError } from '../../domain/errors.ts';

export const CELL_SIZES = ['S', 'M', 'L', 'XL'] as const;
export type CellSize = (typeof CELL_SIZES)[number];

export interface PostomatInput {
  title: string;
  address?: string | null;
  description?: string | null;
  imgUrl?: string | null;
  lat?: number | null;
  lng?: number | null;
  schedule?: string | null;
  shortId?: string;
  cityId?: string | null;
  districtId?: string | null;
  isActive?: boolean;
}

export interface CellInput {
  number: number;
  size: CellSize;
  /** board bus address (0-15) and lock number on it (1-16) */
  board: number;
  lock: number;
  isActive?: boolean;
  title?: string;
}

/** A short public id for links in SMS and on stickers: 6 characters, no look-alikes. */
export function newShortId(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  return Array.from(crypto.randomBytes(6), (b) => alphabet[b % alphabet.length]).join('');
}

export async function createPostomat(db: Db, input: PostomatInput, cells: CellInput[] = [], now = new Date()) {
  const at = now.toISOString();
  return db.transaction().execute(async (trx) => {
    const max = await trx.selectFrom('postomat').select((eb) => eb.fn.max<number>('incrementalid').as('m')).executeTakeFirst();
    const row = {
      id: newId(),
      incrementalid: Number(max?.m ?? 0) + 1,
      title: input.title,
      address: input.address ?? null,
      description: input.description ?? null,
      imgUrl: input.imgUrl ?? null,
      lat: input.lat ?? null,
      lng: input.lng ?? null,
      schedule: input.schedule ?? null,
      shortId: input.shortId ?? newShortId(),
      isActive: input.isActive === false ? 0 : 1,
      isConnected: 0,
      cityId: input.cityId ?? null,
      districtId: input.districtId ?? null,
      agentSecretHash: null,
      createdAt: at,
      updatedAt: at,
    };
    await trx.insertInto('postomat').values(row).execute();
    const created = await addCells(trx, row.id, cells, now);
    return { ...row, cells: created };
  });
}

export async function addCells(db: Db, postomatId: string, cells: CellInput[], now = new Date()) {
  const at = now.toISOString();
  const boards = new Map(
    (await db.selectFrom('board').selectAll().where('postomatId', '=', postomatId).execute()).map((b) => [b.address, b]),
  );
  const out = [];
  for (const c of cells) {
    if (!CELL_SIZES.includes(c.size)) throw new Error(`cell ${c.number}: size must be one of ${CELL_SIZES.join(', ')}`);
    if (!Number.isInteger(c.board) || c.board < 0 || c.board > 15) throw new Error(`cell ${c.number}: board address must be 0-15`);
    if (!Number.isInteger(c.lock) || c.lock < 1 || c.lock > 16) throw new Error(`cell ${c.number}: lock must be 1-16`);
    let board = boards.get(c.board);
    if (!board) {
      board = { id: newId(), postomatId, address: c.board, title: `Board ${c.board}`, createdAt: at, updatedAt: at };
      await db.insertInto('board').values(board).execute();
      boards.set(c.board, board);
    }
    const cell = {
      id: newId(),
      title: c.title ?? String(c.number),
      number: c.number,
      size: c.size,
      isActive: c.isActive === false ? 0 : 1,
      isOpen: 0,
      forRentAvailable: 0,
      postomatId,
      boardId: board.id,
      lock: c.lock,
      createdAt: at,
      updatedAt: at,
    };
    await db.insertInto('cell').values(cell).execute();
    out.push({ ...cell, boardAddress: c.board });
  }
  return out;
}

/** Issues new agent credentials (username = locker id); the password is shown only now. */
export async function resetAgentCredentials(db: Db, postomatId: string, now = new Date()) {
  const password = newPassword();
  const res = await db
    .updateTable('postomat')
    .set({ agentSecretHash: hashPassword(password), updatedAt: now.toISOString() })
    .where('id', '=', postomatId)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) throw new DomainError('POSTOMAT_NOT_FOUND');
  return { username: postomatId, password };
}
