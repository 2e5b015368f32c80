/**
 * Storage rows → the spec's JSON objects. Integer flags become booleans and minor units
 * become numbers here, and only here. Secrets that the spec keeps out (agent password hashes,
 * API key hashes) never leave storage.
 */
import { toMajor } from '../domain/money.ts';
import type {
  CellTable,
  CityTable,
  CountryTable,
  DistrictTable,
  LockerOrderTable,
  PostomatTable,
  BoardTable,
} from '../storage/schema.ts';
import type { CellSize } from '../../shared/mqtt/schemas.ts';
import type { BoardOut, CellOut, CityOut, CountryOut, DistrictOut, OrderOut, PostomatOut } from './responses.ts';

const bool = (v: number) => v === 1;

export function presentOrder(o: LockerOrderTable): OrderOut {
  return {
    id: o.id,
    postomatId: o.postomatId,
    companyId: o.companyId,
    toUserId: o.toUserId,
    cellId: o.cellId,
    currentStatusId: o.currentStatusId,
    days: o.days,
    weight: o.weight,
    customData: o.customData,
    sendMessage: bool(o.sendMessage),
    isActive: bool(o.isActive),
    price: toMajor(o.price),
    deliveryPrice: toMajor(o.deliveryPrice),
    paidAmount: toMajor(o.paidAmount),
    notPaidAmount: toMajor(o.notPaidAmount),
    promoCodeAmount: toMajor(o.promoCodeAmount),
    startDateTime: o.startDateTime,
    endDateTime: o.endDateTime,
    // Sized orders only (issue 22): an unsized order's answer is the spec's, field for field.
    ...(o.cellSize ? { cellSize: o.cellSize as CellSize } : {}),
    ...(o.cellSize && o.reserveUntil ? { reserveUntil: o.reserveUntil } : {}),
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    // An extension field, only on returns: a delivery's answer stays the spec's, to the letter.
    ...(o.kind === 'RETURN' && { kind: o.kind }),
  };
}

export function presentPostomat(p: PostomatTable): PostomatOut {
  return {
    id: p.id,
    incrementalid: p.incrementalid,
    title: p.title,
    address: p.address,
    description: p.description,
    imgUrl: p.imgUrl,
    lat: p.lat,
    lng: p.lng,
    schedule: p.schedule,
    shortId: p.shortId,
    isActive: bool(p.isActive),
    isConnected: bool(p.isConnected),
    cityId: p.cityId,
    districtId: p.districtId,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

export function presentCell(c: CellTable): CellOut {
  return {
    id: c.id,
    title: c.title,
    number: c.number,
    size: c.size as CellSize,
    isActive: bool(c.isActive),
    isOpen: bool(c.isOpen),
    forRentAvailable: bool(c.forRentAvailable),
    postomatId: c.postomatId,
    boardId: c.boardId,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export function presentBoard(b: BoardTable): BoardOut {
  return {
    id: b.id,
    title: b.title,
    address: b.address,
    postomatId: b.postomatId,
    createdAt: b.createdAt,
    updatedAt: b.updatedAt,
  };
}

export const presentCountry = (c: CountryTable): CountryOut => ({
  id: c.id,
  title: c.title,
  isActive: bool(c.isActive),
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});
export const presentCity = (c: CityTable): CityOut => ({
  id: c.id,
  title: c.title,
  isActive: bool(c.isActive),
  countryId: c.countryId,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});
export const presentDistrict = (d: DistrictTable): DistrictOut => ({
  id: d.id,
  title: d.title,
  isActive: bool(d.isActive),
  cityId: d.cityId,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

export function presentAggregate(amounts: Record<string, number>) {
  return Object.fromEntries(Object.entries(amounts).map(([k, v]) => [k, toMajor(v)]));
}
