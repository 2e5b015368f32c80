/** One answer of a parcel or cargo list: `{ total, data }` with each item's related objects. */
import type { AppDeps } from '../deps.ts';
import { listShipments, type Page, type ShipmentFilter } from '../storage/shipment-queries.ts';
import { shipmentRelations } from '../storage/shipment-relations.ts';
import { presentCargoItem, presentParcelItem } from './present-shipments.ts';

export async function parcelPage(deps: AppDeps, filter: ShipmentFilter, page?: Page) {
  const { total, rows } = await listShipments(deps.db, deps.dialect, 'parcel', filter, page);
  const rel = await shipmentRelations(deps.db, 'parcel', rows);
  return { total, data: rows.map((p) => presentParcelItem(p, rel)) };
}

export async function cargoPage(deps: AppDeps, filter: ShipmentFilter, page?: Page) {
  const { total, rows } = await listShipments(deps.db, deps.dialect, 'cargo', filter, page);
  const rel = await shipmentRelations(deps.db, 'cargo', rows);
  return { total, data: rows.map((c) => presentCargoItem(c, rel)) };
}
