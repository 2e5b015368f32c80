import type { Kysely } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { raw, timestamps } from './types.ts';

export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  const s = db.schema;
  await timestamps(
    s
      .createTable('locker_company')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('notificationUrl', 'text')
      .addColumn('defaultDays', 'integer', (c) => c.notNull().defaultTo(3))
      .addColumn('balance', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('orderPrice', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('deliveryPrice', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('isActive', 'integer', (c) => c.notNull().defaultTo(1)),
  ).execute();

  await s
    .createTable('locker_api_key')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('companyId', 'text', (c) => c.notNull().references('locker_company.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('keyHash', 'text', (c) => c.notNull().unique())
    .addColumn('keyPrefix', 'text', (c) => c.notNull())
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();

  await timestamps(
    s
      .createTable('country')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('isActive', 'integer', (c) => c.notNull().defaultTo(1)),
  ).execute();
  await timestamps(
    s
      .createTable('city')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('isActive', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('countryId', 'text', (c) => c.notNull().references('country.id')),
  ).execute();
  await timestamps(
    s
      .createTable('district')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('isActive', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('cityId', 'text', (c) => c.notNull().references('city.id')),
  ).execute();

  await timestamps(
    s
      .createTable('postomat')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('incrementalid', 'integer', (c) => c.notNull().unique())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('address', 'text')
      .addColumn('description', 'text')
      .addColumn('imgUrl', 'text')
      .addColumn('lat', 'double precision')
      .addColumn('lng', 'double precision')
      .addColumn('schedule', 'text')
      .addColumn('shortId', 'text', (c) => c.notNull().unique())
      .addColumn('isActive', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('isConnected', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('cityId', 'text', (c) => c.references('city.id'))
      .addColumn('districtId', 'text', (c) => c.references('district.id'))
      .addColumn('agentSecretHash', 'text'),
  ).execute();
  await raw(db, 'create index postomat_active_title on postomat ("isActive", "title", "id")');

  await timestamps(
    s
      .createTable('board')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('postomatId', 'text', (c) => c.notNull().references('postomat.id'))
      .addColumn('address', 'integer', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addUniqueConstraint('board_postomat_address', ['postomatId', 'address']),
  ).execute();

  await timestamps(
    s
      .createTable('cell')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('number', 'integer', (c) => c.notNull())
      .addColumn('size', 'text', (c) => c.notNull())
      .addColumn('isActive', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('isOpen', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('forRentAvailable', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('postomatId', 'text', (c) => c.notNull().references('postomat.id'))
      .addColumn('boardId', 'text', (c) => c.notNull().references('board.id'))
      .addColumn('lock', 'integer', (c) => c.notNull())
      .addUniqueConstraint('cell_postomat_number', ['postomatId', 'number'])
      .addUniqueConstraint('cell_board_lock', ['boardId', 'lock']),
  ).execute();

  await timestamps(
    s
      .createTable('recipient')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('phone', 'text', (c) => c.notNull().unique()),
  ).execute();

  await timestamps(
    s
      .createTable('locker_order')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('postomatId', 'text', (c) => c.notNull().references('postomat.id'))
      .addColumn('companyId', 'text', (c) => c.notNull().references('locker_company.id'))
      .addColumn('toUserId', 'text', (c) => c.notNull().references('recipient.id'))
      .addColumn('cellId', 'text', (c) => c.references('cell.id'))
      .addColumn('currentStatusId', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('days', 'integer', (c) => c.notNull())
      .addColumn('weight', 'double precision', (c) => c.notNull().defaultTo(0))
      .addColumn('customData', 'text')
      .addColumn('sendMessage', 'integer', (c) => c.notNull())
      .addColumn('isActive', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('price', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('deliveryPrice', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('paidAmount', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('notPaidAmount', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('promoCodeAmount', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('startDateTime', 'text')
      .addColumn('endDateTime', 'text'),
  ).execute();
  // Newest-first pages, with and without a status filter, read straight off these indexes.
  await raw(
    db,
    'create index locker_order_company_created on locker_order ("companyId", "isActive", "createdAt", "id")',
  );
  await raw(
    db,
    'create index locker_order_company_status_created on locker_order ("companyId", "isActive", "status", "createdAt", "id")',
  );
  // expiredAggregate: DELIVERED orders past their end, summed from the index alone.
  await raw(
    db,
    'create index locker_order_expiry on locker_order ("companyId", "status", "endDateTime", "price", "deliveryPrice", "paidAmount", "notPaidAmount", "promoCodeAmount") where "isActive" = 1',
  );
  await raw(db, 'create index locker_order_postomat_status on locker_order ("postomatId", "status")');
  await raw(db, 'create index locker_order_cell on locker_order ("cellId", "status")');

  await timestamps(
    s
      .createTable('order_status')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('orderId', 'text', (c) => c.notNull().references('locker_order.id'))
      .addColumn('type', 'text', (c) => c.notNull()),
  ).execute();
  await raw(db, 'create index order_status_order on order_status ("orderId", "createdAt")');

  await timestamps(
    s
      .createTable('order_code')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('orderId', 'text', (c) => c.notNull().references('locker_order.id'))
      .addColumn('postomatId', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('password', 'text', (c) => c.notNull())
      .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1)),
  ).execute();
  await raw(db, 'create index order_code_order on order_code ("orderId", "type")');
  // A code typed at a locker must name one order: unique per locker among not-final orders
  // (across types, which is stricter than the spec's per-type rule and implies it).
  await raw(
    db,
    'create unique index order_code_active_unique on order_code ("postomatId", "password") where "active" = 1',
  );

  await s
    .createTable('order_stats')
    .addColumn('companyId', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('price', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('deliveryPrice', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('paidAmount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('notPaidAmount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('promoCodeAmount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('order_stats_pk', ['companyId', 'status'])
    .execute();
}
