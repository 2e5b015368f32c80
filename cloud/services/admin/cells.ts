/** Cells of a locker: adding them (explicitly or by count), changing size and availability. */
import type { Db } from '../../storage/database.ts';
import { newId } from '../../storage/ids.ts';
import {
  boardsAt,
  cellById,
  cellsWithLocksAt,
  deleteSizeSpec,
  highestCellNumber,
  insertBoard,
  insertCell,
  insertSizeSpec,
  locksTakenOnBoard,
  updateCellRow,
} from '../../storage/cell-queries.ts';
import { existingPostomatId } from '../../storage/postomat-queries.ts';
import { DomainError } from '../../domain/errors.ts';
import { CellSize as CellSizeSchema } from '../../../shared/mqtt/schemas.ts';

/** The contract's sizes (shared/mqtt), smallest first. */
export const CELL_SIZES = CellSizeSchema.options;
export type CellSize = (typeof CELL_SIZES)[number];

/** Kerong-style boards: bus address 0-15 set by DIP switches, locks 1-16 on each board. */
export const BOARD_ADDRESSES = { min: 0, max: 15 } as const;
export const LOCKS_PER_BOARD = 16;

export interface CellInput {
  number: number;
  size: CellSize;
  /** board bus address (0-15) and lock number on it (1-16) */
  board: number;
  lock: number;
  isActive?: boolean;
  title?: string;
}

const refuse = (message: string) => new DomainError('NOT_ACCEPTABLE', message);

/** Refuses bad sizes, addresses and locks, and numbers or locks already taken (in the input or at the locker). */
async function checkCells(db: Db, postomatId: string, cells: CellInput[]) {
  const existing = await cellsWithLocksAt(db, postomatId);
  // The locker's cells so far, and this list's. A clash inside the list is named as such: the
  // locker may be one this same transaction is creating, which a refusal rolls back.
  const numbers = new Set(existing.map((c) => c.number));
  const locks = new Set(existing.map((c) => `${c.address}:${c.lock}`));
  const given = new Set<number>();
  const givenLocks = new Set<string>();
  for (const c of cells) {
    const lock = `${c.board}:${c.lock}`;
    if (given.has(c.number)) throw refuse(`cell number ${c.number} is given twice`);
    if (givenLocks.has(lock)) throw refuse(`lock ${c.lock} on board ${c.board} is given to two cells`);
    given.add(c.number);
    givenLocks.add(lock);
    if (!Number.isInteger(c.number) || c.number < 1)
      throw refuse(`cell number ${c.number} must be a whole number >= 1`);
    if (!CELL_SIZES.includes(c.size)) throw refuse(`cell ${c.number}: size must be one of ${CELL_SIZES.join(', ')}`);
    if (!Number.isInteger(c.board) || c.board < BOARD_ADDRESSES.min || c.board > BOARD_ADDRESSES.max)
      throw refuse(`cell ${c.number}: board address must be 0-15`);
    if (!Number.isInteger(c.lock) || c.lock < 1 || c.lock > LOCKS_PER_BOARD)
      throw refuse(`cell ${c.number}: lock must be 1-16`);
    if (numbers.has(c.number)) throw refuse(`cell number ${c.number} is already used at locker ${postomatId}`);
    if (locks.has(lock)) throw refuse(`lock ${c.lock} on board ${c.board} already has a cell at locker ${postomatId}`);
  }
}

export async function addCells(db: Db, postomatId: string, cells: CellInput[], now: Date) {
  await checkCells(db, postomatId, cells);
  const at = now.toISOString();
  const boards = new Map((await boardsAt(db, postomatId)).map((b) => [b.address, b]));
  const out = [];
  for (const c of cells) {
    let board = boards.get(c.board);
    if (!board) {
      board = { id: newId(), postomatId, address: c.board, title: `Board ${c.board}`, createdAt: at, updatedAt: at };
      await insertBoard(db, board);
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
    await insertCell(db, cell);
    out.push({ ...cell, boardAddress: c.board });
  }
  return out;
}

/**
 * `count` cells of one size on one board: numbers continue after the locker's highest, locks
 * take the lowest free ones on the board.
 */
export async function planCells(
  db: Db,
  postomatId: string,
  want: { count: number; size: CellSize; board: number },
): Promise<CellInput[]> {
  const highest = await highestCellNumber(db, postomatId);
  const used = await locksTakenOnBoard(db, postomatId, want.board);
  const taken = new Set(used.map((u) => u.lock));
  const free = Array.from({ length: LOCKS_PER_BOARD }, (_, i) => i + 1).filter((l) => !taken.has(l));
  if (free.length < want.count)
    throw refuse(`board ${want.board} has ${free.length} free locks, ${want.count} cells asked for`);
  const first = highest + 1;
  return free.slice(0, want.count).map((lock, i) => ({ number: first + i, size: want.size, board: want.board, lock }));
}

export async function getCell(db: Db, cellId: string) {
  const cell = await cellById(db, cellId);
  if (!cell) throw new DomainError('CELL_NOT_FOUND', `no cell ${cellId}`);
  return cell;
}

export async function updateCell(
  db: Db,
  cellId: string,
  changes: { size?: CellSize; isActive?: boolean; title?: string },
  now: Date,
) {
  await getCell(db, cellId);
  if (changes.size !== undefined && !CELL_SIZES.includes(changes.size))
    throw refuse(`size must be one of ${CELL_SIZES.join(', ')}`);
  const set = {
    ...(changes.size === undefined ? {} : { size: changes.size }),
    ...(changes.title === undefined ? {} : { title: changes.title }),
    ...(changes.isActive === undefined ? {} : { isActive: changes.isActive ? 1 : 0 }),
    updatedAt: now.toISOString(),
  };
  await updateCellRow(db, cellId, set);
  return getCell(db, cellId);
}

/** The operator's "cell add": listed cells, or `count` cells planned by planCells, all or none. */
export async function addCellsToPostomat(
  db: Db,
  postomatId: string,
  cells: CellInput[] | { count: number; size: CellSize; board: number },
  now: Date,
) {
  const postomat = await existingPostomatId(db, postomatId);
  if (!postomat) throw new DomainError('POSTOMAT_NOT_FOUND', `no locker ${postomatId}`);
  return db.transaction().execute(async (trx) => {
    const list = Array.isArray(cells) ? cells : await planCells(trx, postomatId, cells);
    return addCells(trx, postomatId, list, now);
  });
}

/**
 * A locker's own inner dimensions and heaviest parcel for one cell size (issue 22), replacing
 * the defaults of domain/cell-sizes.ts there; `reset` goes back to the defaults. Sized orders
 * already booked keep their size.
 */
export async function setSizeSpec(
  db: Db,
  postomatId: string,
  size: CellSize,
  spec: { lengthMm: number; widthMm: number; heightMm: number; maxWeightKg: number } | 'reset',
  now: Date,
) {
  const postomat = await existingPostomatId(db, postomatId);
  if (!postomat) throw new DomainError('POSTOMAT_NOT_FOUND', `no locker ${postomatId}`);
  await deleteSizeSpec(db, postomatId, size);
  if (spec === 'reset') return;
  await insertSizeSpec(db, { postomatId, size, ...spec, updatedAt: now.toISOString() });
}
