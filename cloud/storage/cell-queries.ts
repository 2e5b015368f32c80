/**
 * A locker's cells and boards as the operator adds and changes them, its own cell sizes
 * (issue 22), single cells by id for staff, and the cells as the locker link reads and marks them
 * (the cell map of sync messages, a placement's cell, the doors the agent reports open). Reads of
 * a whole locker's cells for the APIs are postomat-queries.ts's; occupancy is cell-occupancy.ts's.
 */
import type { Db } from './database.ts';
import { prepared } from './prepared.ts';
import type { BoardTable, CellTable, LockerCellSizeTable } from './schema.ts';

/** Every cell of a locker with its lock and board address (numbers and locks already taken). */
export function cellsWithLocksAt(db: Db, postomatId: string) {
  return db
    .selectFrom('cell')
    .innerJoin('board', 'board.id', 'cell.boardId')
    .select(['cell.number', 'cell.lock', 'board.address'])
    .where('cell.postomatId', '=', postomatId)
    .execute();
}

/** A locker's boards, in no particular order. */
export function boardsAt(db: Db, postomatId: string) {
  return db.selectFrom('board').selectAll().where('postomatId', '=', postomatId).execute();
}

export async function insertBoard(db: Db, board: BoardTable): Promise<void> {
  await db.insertInto('board').values(board).execute();
}

export async function insertCell(db: Db, cell: CellTable): Promise<void> {
  await db.insertInto('cell').values(cell).execute();
}

/** The highest cell number at a locker, 0 when it has none. */
export async function highestCellNumber(db: Db, postomatId: string): Promise<number> {
  const max = await db
    .selectFrom('cell')
    .select((eb) => eb.fn.max<number>('number').as('m'))
    .where('postomatId', '=', postomatId)
    .executeTakeFirst();
  return Number(max?.m ?? 0);
}

/** The locks with a cell on one board of a locker. */
export function locksTakenOnBoard(db: Db, postomatId: string, address: number) {
  return db
    .selectFrom('cell')
    .innerJoin('board', 'board.id', 'cell.boardId')
    .select('cell.lock')
    .where('board.postomatId', '=', postomatId)
    .where('board.address', '=', address)
    .execute();
}

export function cellById(db: Db, cellId: string) {
  return db.selectFrom('cell').selectAll().where('id', '=', cellId).executeTakeFirst();
}

export async function updateCellRow(
  db: Db,
  cellId: string,
  set: Partial<Pick<CellTable, 'size' | 'title' | 'isActive'>> & { updatedAt: string },
): Promise<void> {
  await db.updateTable('cell').set(set).where('id', '=', cellId).execute();
}

/** How many cells each locker has (lockers without cells are absent). */
export function cellCountsPerPostomat(db: Db) {
  return db
    .selectFrom('cell')
    .select((eb) => ['postomatId', eb.fn.countAll<number>().as('n')])
    .groupBy('postomatId')
    .execute();
}

/** One cell with the address of its board, as staff see it beside an order. */
export function cellWithBoardAddress(db: Db, cellId: string) {
  return db
    .selectFrom('cell')
    .innerJoin('board', 'board.id', 'cell.boardId')
    .select(['cell.id', 'cell.number', 'cell.size', 'cell.lock', 'board.address as board'])
    .where('cell.id', '=', cellId)
    .executeTakeFirst();
}

/** The number a locker's agent knows a cell by. */
export function cellNumberOf(db: Db, cellId: string) {
  return db.selectFrom('cell').select('number').where('id', '=', cellId).executeTakeFirst();
}

/** The sizes a locker measures otherwise than the defaults. */
export function sizeSpecsSetAt(db: Db, postomatId: string) {
  return db.selectFrom('locker_cell_size').selectAll().where('postomatId', '=', postomatId).execute();
}

export async function deleteSizeSpec(db: Db, postomatId: string, size: string): Promise<void> {
  await db.deleteFrom('locker_cell_size').where('postomatId', '=', postomatId).where('size', '=', size).execute();
}

export async function insertSizeSpec(db: Db, spec: LockerCellSizeTable): Promise<void> {
  await db.insertInto('locker_cell_size').values(spec).execute();
}

/** The numbers of a locker's cells, in no particular order (compared with the agent's). */
export function cellNumbersAt(db: Db, postomatId: string) {
  return db.selectFrom('cell').select('number').where('postomatId', '=', postomatId).execute();
}

/** A locker's cells with their boards' addresses, by number (the enrolment's cell map). */
export function cellsWithBoardsAt(db: Db, postomatId: string) {
  return db
    .selectFrom('cell')
    .innerJoin('board', 'board.id', 'cell.boardId')
    .select(['cell.number', 'cell.size', 'cell.lock', 'board.address'])
    .where('cell.postomatId', '=', postomatId)
    .orderBy('cell.number')
    .execute();
}

/** A locker's cell map as sync messages carry it, by number (every delta reads it: prepared once). */
export const cellMapRowsAt = prepared(1, (db: Db, postomatId) =>
  db.selectFrom('cell').select(['number', 'size', 'isActive']).where('postomatId', '=', postomatId).orderBy('number'),
) as (db: Db, postomatId: string) => Promise<Array<Pick<CellTable, 'number' | 'size' | 'isActive'>>>;

/** The cell a locker's agent names by its number, as a query (also a subquery of order-lookups.ts orderWithEventFacts). */
export const cellIdByNumberQuery = (db: Db, postomatId: unknown, number: unknown) =>
  db
    .selectFrom('cell')
    .select('id')
    .where('postomatId', '=', postomatId as string)
    .where('number', '=', number as number);

/** The cell a locker's agent names by its number. */
export function cellIdByNumber(db: Db, postomatId: string, number: number) {
  return cellIdByNumberQuery(db, postomatId, number).executeTakeFirst();
}

/** Marks the cells of these numbers open (1) or closed (0) where they are not already. */
export async function setCellsOpen(
  db: Db,
  postomatId: string,
  flag: 0 | 1,
  numbers: number[],
  updatedAt: string,
): Promise<void> {
  await db
    .updateTable('cell')
    .set({ isOpen: flag, updatedAt })
    .where('postomatId', '=', postomatId)
    .where('number', 'in', numbers)
    .where('isOpen', '!=', flag)
    .execute();
}
