/**
 * The locker's cell map as the cloud knows it, carried in sync messages (contract 1.0, an
 * optional field: an older agent ignores it, an older cloud never sends it). Kept apart from
 * schemas.ts: it extends the sync message without changing it.
 *
 * The agent places parcels only in cells of this map that are active, so a cell wired at the
 * locker but unknown to the cloud (a wrong cell map) never takes a parcel the cloud would then
 * refuse. A full snapshot always carries the map; a delta carries it too (it is small: one
 * locker's cells).
 */
import { z } from 'zod';
import { CellSize, SyncMessage } from './schemas.ts';

/** 16 boards of 16 locks: more cells than that cannot be wired to one bus. */
export const MAX_CELLS_PER_LOCKER = 256;

export const CellMapEntry = z.object({
  /** the cell's number in the cloud, as the agent names cells */
  cellId: z.string().regex(/^[1-9]\d{0,8}$/, 'a cell number'),
  size: CellSize,
  /** an inactive cell takes no new parcel (the operator switched it off) */
  isActive: z.boolean(),
});
export type CellMapEntry = z.infer<typeof CellMapEntry>;

export const CellMap = z.array(CellMapEntry).max(MAX_CELLS_PER_LOCKER);
export type CellMap = z.infer<typeof CellMap>;

/** cloud → agent: `lockers/{id}/sync`, with the locker's cell map. */
export const SyncMessageWithCells = SyncMessage.extend({ cells: CellMap.optional() });
export type SyncMessageWithCells = z.infer<typeof SyncMessageWithCells>;
