/**
 * The agent's cells (its `cells` report, from its config) against the cloud's: a difference is
 * a wiring or configuration mistake that the operator must see. The agent already refuses to
 * place parcels in cells the cloud does not know (it learns the cloud's map by sync), so
 * nothing is stranded; the alarm says why those cells stay unused, or why cells the cloud
 * offers as free do not exist at the locker. A report that matches again resolves it.
 */
import type { Logger } from '../logger.ts';
import type { Db } from '../storage/database.ts';
import { cellNumbersAt } from '../storage/cell-queries.ts';
import { clearStateAlarm } from '../storage/locker-alarm-queries.ts';
import { setStateAlarm } from './alarms.ts';

export interface CellMapDifference {
  /** cells the agent has that the cloud does not know */
  unknownToCloud: string[];
  /** cells of the cloud the agent does not have */
  missingAtLocker: string[];
}

export function compareCellMaps(
  agentCells: readonly string[],
  cloudCells: readonly string[],
): CellMapDifference | undefined {
  const cloud = new Set(cloudCells);
  const agent = new Set(agentCells);
  const byNumber = (a: string, b: string) => Number(a) - Number(b) || a.localeCompare(b);
  const unknownToCloud = [...agent].filter((c) => !cloud.has(c)).sort(byNumber);
  const missingAtLocker = [...cloud].filter((c) => !agent.has(c)).sort(byNumber);
  return unknownToCloud.length || missingAtLocker.length ? { unknownToCloud, missingAtLocker } : undefined;
}

const MAX_LISTED = 20;
const list = (cells: string[]) =>
  cells.slice(0, MAX_LISTED).join(', ') + (cells.length > MAX_LISTED ? ` and ${cells.length - MAX_LISTED} more` : '');

export function describeDifference(d: CellMapDifference): string {
  const parts: string[] = [];
  if (d.unknownToCloud.length)
    parts.push(`the agent has cells the cloud does not know (never used for parcels): ${list(d.unknownToCloud)}`);
  if (d.missingAtLocker.length) parts.push(`cells of the cloud the agent does not have: ${list(d.missingAtLocker)}`);
  return parts.join('; ');
}

/** Raises, updates or resolves the locker's CELL_MAP_MISMATCH alarm after a cells report. */
export async function checkCellMap(
  db: Db,
  logger: Logger,
  postomatId: string,
  agentCells: readonly string[],
  now: Date,
): Promise<void> {
  const cloud = await cellNumbersAt(db, postomatId);
  const difference = compareCellMaps(
    agentCells,
    cloud.map((c) => String(c.number)),
  );
  if (!difference) {
    if (await clearStateAlarm(db, postomatId, 'CELL_MAP_MISMATCH', "the agent's cells match the cloud's again", now)) {
      logger.info("locker cell map matches the cloud's again: alarm resolved", { lockerId: postomatId });
    }
    return;
  }
  const detail = describeDifference(difference);
  if (await setStateAlarm(db, postomatId, 'CELL_MAP_MISMATCH', detail, now)) {
    logger.warn("locker cell map differs from the cloud's: alarm raised", {
      lockerId: postomatId,
      unknownToCloud: difference.unknownToCloud.slice(0, MAX_LISTED),
      missingAtLocker: difference.missingAtLocker.slice(0, MAX_LISTED),
    });
  }
}
