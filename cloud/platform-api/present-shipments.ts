/**
 * Parcel and cargo list items: the item's own fields and the related objects the spec names
 * (currentStatus with the cities and warehouses of origin and destination, statuses, client,
 * order with currency, type, slot, currentWarehouseCompany, logisticCompany, expenses,
 * receiptCity, deliveryCity, originWarehouse, deliveryWarehouse), plus currentWarehouse.
 * Nothing here keeps slots or expenses: `slot` is null and `expenses` empty (docs/decisions.md).
 */
import { toMajor } from '../domain/money.ts';
import type { Row } from '../storage/platform-related.ts';
import type { ShipmentRelations, StatusRow } from '../storage/shipment-relations.ts';
import type { z } from 'zod';
import type { CargoItem, ParcelItem } from './responses.ts';
import {
  presentCargoType,
  presentCity,
  presentClientColumns,
  presentCompanyColumns,
  presentPaymentOrder,
  presentWarehouse,
} from './present-records.ts';

type Parcel = Row<'parcel'>;
type Cargo = Row<'cargo'>;

const pick = <T, R>(m: Map<number, T>, id: number | null, present: (t: T) => R): R | null => {
  const row = id === null ? undefined : m.get(id);
  return row === undefined ? null : present(row);
};

function presentStatus(s: StatusRow) {
  return {
    id: s.id,
    status: s.status,
    warehouseId: s.warehouseId,
    originWarehouseId: s.originWarehouseId,
    destinationWarehouseId: s.destinationWarehouseId,
    originCityId: s.originCityId,
    destinationCityId: s.destinationCityId,
    userId: s.userId,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

/** What parcels and cargo share. */
function shared(i: Parcel | Cargo, rel: ShipmentRelations) {
  const history = rel.statuses.get(i.id) ?? [];
  const current = history.find((s) => s.id === i.currentStatusId);
  const currentWarehouse = i.currentWarehouseId === null ? undefined : rel.warehouses.get(i.currentWarehouseId);
  return {
    clientId: i.clientId,
    companyId: i.companyId,
    supplierId: i.supplierId,
    cargoTypeId: i.cargoTypeId,
    originWarehouseId: i.originWarehouseId,
    currentWarehouseId: i.currentWarehouseId,
    deliveryWarehouseId: i.deliveryWarehouseId,
    receiptCityId: i.receiptCityId,
    deliveryCityId: i.deliveryCityId,
    paymentOrderId: i.paymentOrderId,
    currentStatusId: i.currentStatusId,
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
    currentStatus: current
      ? {
          ...presentStatus(current),
          originCity: pick(rel.cities, current.originCityId, presentCity),
          destinationCity: pick(rel.cities, current.destinationCityId, presentCity),
          originWarehouse: pick(rel.warehouses, current.originWarehouseId, presentWarehouse),
          destinationWarehouse: pick(rel.warehouses, current.destinationWarehouseId, presentWarehouse),
        }
      : null,
    statuses: history.map(presentStatus),
    client: pick(rel.clients, i.clientId, presentClientColumns),
    order: pick(rel.orders, i.paymentOrderId, presentPaymentOrder),
    type: pick(rel.types, i.cargoTypeId, presentCargoType),
    slot: null,
    currentWarehouse: currentWarehouse ? presentWarehouse(currentWarehouse) : null,
    currentWarehouseCompany: currentWarehouse
      ? pick(rel.companies, currentWarehouse.companyId, presentCompanyColumns)
      : null,
    logisticCompany: pick(rel.companies, i.companyId, presentCompanyColumns),
    expenses: [],
    receiptCity: pick(rel.cities, i.receiptCityId, presentCity),
    deliveryCity: pick(rel.cities, i.deliveryCityId, presentCity),
    originWarehouse: pick(rel.warehouses, i.originWarehouseId, presentWarehouse),
    deliveryWarehouse: pick(rel.warehouses, i.deliveryWarehouseId, presentWarehouse),
  };
}

export function presentParcelItem(p: Parcel, rel: ShipmentRelations): z.output<typeof ParcelItem> {
  return {
    id: p.id,
    trackCode: p.trackCode,
    description: p.description,
    weight: p.weight,
    price: toMajor(p.price),
    currency: p.currency,
    status: p.status,
    deliveryMethod: p.deliveryMethod,
    postomatId: p.postomatId,
    postomatOrderId: p.postomatOrderId,
    partnerCompanyId: p.partnerCompanyId,
    ...shared(p, rel),
  };
}

export function presentCargoItem(c: Cargo, rel: ShipmentRelations): z.output<typeof CargoItem> {
  return {
    id: c.id,
    trackCode: c.trackCode,
    description: c.description,
    tractorNumber: c.tractorNumber,
    weight: c.weight,
    price: toMajor(c.price),
    currency: c.currency,
    status: c.status,
    ...shared(c, rel),
  };
}
