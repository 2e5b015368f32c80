/**
 * The related records of a page of parcels or cargo (status history, client, payment order,
 * cargo type, companies, cities, warehouses), one query per kind for a whole batch, grouped by key once.
 */
import type { Db } from './database.ts';
import type { SearchedTable } from './shipment-search.ts';
import { rowsById, type Row } from './platform-related.ts';
import { groupBy } from './batches.ts';

export type StatusRow = Row<'parcel_status'> | Row<'cargo_status'>;

export interface ShipmentRelations {
  statuses: Map<number, StatusRow[]>;
  clients: Map<number, Row<'platform_client'>>;
  orders: Map<number, Row<'payment_order'>>;
  types: Map<number, Row<'cargo_type'>>;
  warehouses: Map<number, Row<'warehouse'>>;
  companies: Map<number, Row<'platform_company'>>;
  cities: Map<number, Row<'platform_city'>>;
}

type Item = Row<'parcel'> | Row<'cargo'>;

async function statusHistory(db: Db, table: SearchedTable, ids: number[]): Promise<StatusRow[]> {
  if (!ids.length) return [];
  if (table === 'parcel')
    return db.selectFrom('parcel_status').selectAll().where('parcelId', 'in', ids).orderBy('id').execute();
  return db.selectFrom('cargo_status').selectAll().where('cargoId', 'in', ids).orderBy('id').execute();
}

export async function shipmentRelations(db: Db, table: SearchedTable, items: Item[]): Promise<ShipmentRelations> {
  const history = await statusHistory(
    db,
    table,
    items.map((i) => i.id),
  );
  const statuses = groupBy(history, (s) => ('parcelId' in s ? s.parcelId : s.cargoId));
  const currentIds = new Set(items.map((i) => i.currentStatusId));
  const current = history.filter((s) => currentIds.has(s.id));
  const [clients, orders, types, warehouses, cities] = await Promise.all([
    rowsById(
      db,
      'platform_client',
      items.map((i) => i.clientId),
    ),
    rowsById(
      db,
      'payment_order',
      items.map((i) => i.paymentOrderId),
    ),
    rowsById(
      db,
      'cargo_type',
      items.map((i) => i.cargoTypeId),
    ),
    rowsById(db, 'warehouse', [
      ...items.flatMap((i) => [i.originWarehouseId, i.currentWarehouseId, i.deliveryWarehouseId]),
      ...current.flatMap((s) => [s.originWarehouseId, s.destinationWarehouseId]),
    ]),
    rowsById(db, 'platform_city', [
      ...items.flatMap((i) => [i.receiptCityId, i.deliveryCityId]),
      ...current.flatMap((s) => [s.originCityId, s.destinationCityId]),
    ]),
  ]);
  const currentWarehouses = items.map((i) =>
    i.currentWarehouseId === null ? undefined : warehouses.get(i.currentWarehouseId),
  );
  const companies = await rowsById(db, 'platform_company', [
    ...items.map((i) => i.companyId),
    ...currentWarehouses.map((w) => w?.companyId),
  ]);
  return { statuses, clients, orders, types, warehouses, companies, cities };
}
