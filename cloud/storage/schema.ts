/**
 * Table shapes as Kysely sees them. One definition serves SQLite and PostgreSQL:
 * - booleans are stored as integers 0/1 (better-sqlite3 cannot bind JS booleans),
 * - timestamps as fixed-width ISO 8601 text (sorts and compares the same in both),
 * - money as integer minor units (sums stay exact), shown as numbers by the API layer.
 */
import type { OrderKind } from '../../shared/mqtt/schemas.ts';
import type { CloudOrderStatus, CodeType } from '../domain/order-states.ts';
import type { ExtensionTables } from './webhook-schema.ts';
import type { ColumnType, Generated } from 'kysely';

import type { Flag, Iso, Minor } from './column-types.ts';
export type { Flag, Iso, Minor };

export interface LockerCompanyTable {
  id: string;
  title: string;
  notificationUrl: string | null;
  defaultDays: number;
  balance: Minor;
  orderPrice: Minor;
  deliveryPrice: Minor;
  isActive: Flag;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface LockerApiKeyTable {
  id: string;
  companyId: string;
  title: string;
  /** sha256 of the key: the key itself is shown once, at creation */
  keyHash: string;
  /** first characters, so an operator can tell keys apart without seeing them */
  keyPrefix: string;
  createdAt: Iso;
}

export interface CountryTable {
  id: string;
  title: string;
  isActive: Flag;
  createdAt: Iso;
  updatedAt: Iso;
}
export interface CityTable {
  id: string;
  title: string;
  isActive: Flag;
  countryId: string;
  createdAt: Iso;
  updatedAt: Iso;
}
export interface DistrictTable {
  id: string;
  title: string;
  isActive: Flag;
  cityId: string;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface PostomatTable {
  id: string;
  incrementalid: number;
  title: string;
  address: string | null;
  description: string | null;
  imgUrl: string | null;
  lat: number | null;
  lng: number | null;
  schedule: string | null;
  shortId: string;
  isActive: Flag;
  isConnected: Flag;
  cityId: string | null;
  districtId: string | null;
  /** scrypt hash of the agent's MQTT password */
  agentSecretHash: string | null;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface BoardTable {
  id: string;
  postomatId: string;
  /** bus address set by the board's DIP switches (0-15) */
  address: number;
  title: string;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface CellTable {
  id: string;
  title: string;
  number: number;
  size: string;
  isActive: Flag;
  isOpen: Flag;
  forRentAvailable: Flag;
  postomatId: string;
  boardId: string;
  /** lock number on its board (1-16) */
  lock: number;
  createdAt: Iso;
  updatedAt: Iso;
}

/** A locker's own inner dimensions of a cell size, overriding domain/cell-sizes.ts defaults (migration 024). */
export interface LockerCellSizeTable {
  postomatId: string;
  size: string;
  lengthMm: number;
  widthMm: number;
  heightMm: number;
  maxWeightKg: number;
  updatedAt: Iso;
}

export interface RecipientTable {
  id: string;
  phone: string;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface LockerOrderTable {
  id: string;
  postomatId: string;
  companyId: string;
  toUserId: string;
  cellId: string | null;
  currentStatusId: string | null;
  /** current status type, denormalised so list filters use an index */
  status: CloudOrderStatus;
  days: number;
  weight: number;
  customData: string | null;
  sendMessage: Flag;
  isActive: Flag;
  price: Minor;
  deliveryPrice: Minor;
  paidAmount: Minor;
  notPaidAmount: Minor;
  promoCodeAmount: Minor;
  startDateTime: Iso | null;
  endDateTime: Iso | null;
  /**
   * When the order was archived for never having been placed (migration 016; null otherwise).
   * Optional here so rows written without it (seeds, older code) still type-check.
   */
  expiredAt?: Iso | null;
  /** When its company cancelled it before placement (migration 023; null otherwise). */
  cancelledAt?: Iso | null;
  /** The cell size a sized order holds (migration 024; null: any cell, no reservation). */
  cellSize?: string | null;
  /** Until when a sized order holds its cell; past it, unplaced, it becomes EXPIRED (migration 024). */
  reserveUntil?: Iso | null;
  /** DELIVERY or RETURN (migration 025; the column defaults to DELIVERY, hence optional here). */
  kind?: OrderKind;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface OrderStatusTable {
  id: string;
  orderId: string;
  type: CloudOrderStatus;
  createdAt: Iso;
  updatedAt: Iso;
}

export interface OrderCodeTable {
  id: string;
  orderId: string;
  postomatId: string;
  type: CodeType;
  password: string;
  /** 1 while the order is active and not final: the uniqueness of codes is enforced among these */
  active: Flag;
  createdAt: Iso;
  updatedAt: Iso;
}

/** Maintained per company and status so list aggregates never scan orders. */
export interface OrderStatsTable {
  companyId: string;
  status: CloudOrderStatus;
  count: number;
  price: Minor;
  deliveryPrice: Minor;
  paidAmount: Minor;
  notPaidAmount: Minor;
  promoCodeAmount: Minor;
  /** bumped on every change, so caches derived from these orders know when they are stale */
  version: number;
}

export type { OutboxEventTable } from './outbox-schema.ts';
import type { OutboxEventTable } from './outbox-schema.ts';
import type { PlatformDatabase } from './platform-schema.ts';
import type {
  LockerAlarmTable,
  LockerCommandTable,
  LockerEventAttemptTable,
  LockerEventTable,
  LockerLinkTable,
  LockerSyncChangeTable,
  LockerSyncCheckpointTable,
  LockerSyncTable,
} from './locker-link-schema.ts';
import type { LockerEnrolmentTable, LockerReportTable } from './enrolment-schema.ts';

/** The Platform API's tables are declared in platform-schema.ts. */
/** A committed change other processes on a SQLite database must hear of (migration 011). */
export interface ChangeNoticeTable {
  id: Generated<number>;
  message: string;
}

export interface Database extends PlatformDatabase, ExtensionTables {
  change_notice: ChangeNoticeTable;
  locker_company: LockerCompanyTable;
  locker_api_key: LockerApiKeyTable;
  country: CountryTable;
  city: CityTable;
  district: DistrictTable;
  postomat: PostomatTable;
  board: BoardTable;
  cell: CellTable;
  locker_cell_size: LockerCellSizeTable;
  recipient: RecipientTable;
  locker_order: LockerOrderTable;
  order_status: OrderStatusTable;
  order_code: OrderCodeTable;
  order_stats: OrderStatsTable;
  outbox_event: OutboxEventTable;
  locker_sync: LockerSyncTable;
  locker_sync_change: LockerSyncChangeTable;
  locker_sync_checkpoint: LockerSyncCheckpointTable;
  locker_link: LockerLinkTable;
  locker_event: LockerEventTable;
  locker_command: LockerCommandTable;
  locker_event_attempt: LockerEventAttemptTable;
  locker_alarm: LockerAlarmTable;
  locker_enrolment: LockerEnrolmentTable;
  locker_health: LockerReportTable;
  locker_self_test: LockerReportTable;
}

// Re-exported so later tables with generated ids can use them without importing kysely twice.
export type { ColumnType, Generated };
