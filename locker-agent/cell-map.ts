import type { CellConfig } from './config.ts';
import type { CloudCellMap } from './store.ts';

/**
 * Which of the configured cells may take a parcel. With a cloud, only cells of the cloud's cell
 * map (sent with every sync message) that are active there: a parcel in a cell the cloud does
 * not know would be refused by it and stay locked in with its order never placed. Every order a
 * cloud with cell maps sends comes with its map, so a store without one holds only orders from
 * before cell maps (an upgraded agent, until its first full snapshot) or from an older cloud:
 * those keep the config's cells, as they did, so the locker keeps working offline. Without a
 * cloud (orders from a file or the simulator), the config is the map.
 */
export interface CellPlacement {
  /** the cell may take a new parcel */
  usable(cellId: string): boolean;
}

export function cellPlacement(hasCloud: boolean, map: () => CloudCellMap): CellPlacement {
  if (!hasCloud) return { usable: () => true };
  return {
    usable(cellId) {
      const m = map();
      return m.state !== 'map' || m.cells.get(cellId)?.isActive === true;
    },
  };
}

/** What a technician must fix: configured cells the cloud does not know, and the other way round. */
export function describeCellMap(config: readonly CellConfig[], map: CloudCellMap): string | undefined {
  if (map.state !== 'map') return undefined;
  const configured = new Set(config.map((c) => c.cellId));
  const unknown = config.filter((c) => !map.cells.has(c.cellId)).map((c) => c.cellId);
  const missing = [...map.cells.keys()].filter((id) => !configured.has(id));
  const off = config.filter((c) => map.cells.get(c.cellId)?.isActive === false).map((c) => c.cellId);
  const sizes = config
    .filter((c) => {
      const m = map.cells.get(c.cellId);
      return m && m.size !== c.size;
    })
    .map((c) => `${c.cellId} (${c.size} here, ${map.cells.get(c.cellId)!.size} in the cloud)`);
  const lines = [
    unknown.length &&
      `cells ${unknown.join(', ')} are not in the cloud's cell map: they take no parcels (fix the config's cell numbers, or add them in the cloud)`,
    missing.length && `the cloud has cells ${missing.join(', ')} that this config does not wire`,
    off.length && `cells ${off.join(', ')} are switched off in the cloud: they take no new parcels`,
    sizes.length && `cell sizes differ: ${sizes.join('; ')}`,
  ].filter((l): l is string => typeof l === 'string');
  return lines.length ? lines.join('\n') : undefined;
}
