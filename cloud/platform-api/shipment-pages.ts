/**
 * One answer of a parcel or cargo list: `{ total, data }` with each item's related objects,
 * loaded and presented a batch at a time (the spec sets no maximum page size; http/stream-json.ts).
 */
import type { AppDeps } from '../deps.ts';
import { ListAnswer } from '../http/stream-json.ts';
import { mapBatches } from '../storage/batches.ts';
import { listShipments, type Page, type ShipmentFilter } from '../storage/shipment-queries.ts';
import { shipmentRelations } from '../storage/shipment-relations.ts';
import { presentCargoItem, presentParcelItem } from './present-shipments.ts';

export async function parcelPage(deps: AppDeps, filter: ShipmentFilter, page?: Page): Promise<ListAnswer> {
  const { total, batches } = await listShipments(deps.db, deps.dialect, 'parcel', filter, page);
  return new ListAnswer(
    { total },
    mapBatches(batches, async (rows) => {
      const rel = await shipmentRelations(deps.db, 'parcel', rows);
      return rows.map((p) => presentParcelItem(p, rel));
    }),
  );
}

export async function cargoPage(deps: AppDeps, filter: ShipmentFilter, page?: Page): Promise<ListAnswer> {
  const { total, batches } = await listShipments(deps.db, deps.dialect, 'cargo', filter, page);
  return new ListAnswer(
    { total },
    mapBatches(batches, async (rows) => {
      const rel = await shipmentRelations(deps.db, 'cargo', rows);
      return rows.map((c) => presentCargoItem(c, rel));
    }),
  );
}
