import type { Kysely, CreateTableBuilder } from 'kysely';
import type { DialectName } from '../db-types.ts';
import { autoId, raw, timestamps } from './types.ts';

/**
 * The Platform API's tables (see platform-schema.ts for what each column means). Indexes
 * follow the list filters: every parcel and cargo list is scoped to the caller's clients
 * (`clientCompanyId`) and ordered by descending id, so each filter has an index that starts
 * with the company and ends with the id. The substring search indexes over `searchText`
 * (FTS5 trigram, pg_trgm) come in a later migration.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const s = db.schema;
  const table = (name: string) => autoId(s.createTable(name), dialect);
  const titles = <T extends string>(t: CreateTableBuilder<T, any>) =>
    t
      .addColumn('titleRU', 'text')
      .addColumn('titleCN', 'text')
      .addColumn('titleEN', 'text')
      .addColumn('titleKY', 'text');

  await timestamps(
    titles(table('platform_country').addColumn('title', 'text', (c) => c.notNull())).addColumn(
      'isActive',
      'integer',
      (c) => c.notNull().defaultTo(1),
    ),
  ).execute();
  await timestamps(
    titles(
      table('platform_city')
        .addColumn('countryId', 'integer', (c) => c.notNull().references('platform_country.id'))
        .addColumn('title', 'text', (c) => c.notNull()),
    )
      .addColumn('lat', 'double precision')
      .addColumn('lng', 'double precision')
      .addColumn('isActive', 'integer', (c) => c.notNull().defaultTo(1)),
  ).execute();
  await raw(db, 'create index platform_city_country on platform_city ("countryId", "isActive", "id")');

  await timestamps(
    table('platform_company')
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('isActive', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('isIntercity', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('isInternational', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('isCleaning', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('phone', 'text')
      .addColumn('email', 'text')
      .addColumn('address', 'text')
      .addColumn('countryId', 'integer', (c) => c.references('platform_country.id'))
      .addColumn('cityId', 'integer', (c) => c.references('platform_city.id'))
      .addColumn('lockerCompanyId', 'text', (c) => c.references('locker_company.id'))
      .addColumn('lockerAccess', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('lastClientCode', 'integer', (c) => c.notNull().defaultTo(0)),
  ).execute();
  await raw(db, 'create index platform_company_type on platform_company ("type", "isActive", "id")');
  await raw(db, 'create index platform_company_locker on platform_company ("lockerCompanyId")');

  await timestamps(table('delivery_type').addColumn('title', 'text', (c) => c.notNull().unique())).execute();
  await timestamps(
    titles(table('cargo_type').addColumn('title', 'text', (c) => c.notNull()))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('isParent', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('parentId', 'integer', (c) => c.references('cargo_type.id'))
      .addColumn('isActive', 'integer', (c) => c.notNull().defaultTo(1)),
  ).execute();
  await raw(db, 'create index cargo_type_kind on cargo_type ("type", "isActive", "id")');
  await s
    .createTable('cargo_type_delivery_type')
    .addColumn('cargoTypeId', 'integer', (c) => c.notNull().references('cargo_type.id'))
    .addColumn('deliveryTypeId', 'integer', (c) => c.notNull().references('delivery_type.id'))
    .addPrimaryKeyConstraint('cargo_type_delivery_type_pk', ['cargoTypeId', 'deliveryTypeId'])
    .execute();

  await timestamps(
    table('company_code')
      .addColumn('companyId', 'integer', (c) => c.notNull().references('platform_company.id'))
      .addColumn('title', 'text', (c) => c.notNull().unique())
      .addColumn('cargoTypeId', 'integer', (c) => c.notNull().references('cargo_type.id')),
  ).execute();
  await raw(db, 'create index company_code_company on company_code ("companyId", "cargoTypeId")');
  await s
    .createTable('company_cargo_type')
    .addColumn('companyId', 'integer', (c) => c.notNull().references('platform_company.id'))
    .addColumn('cargoTypeId', 'integer', (c) => c.notNull().references('cargo_type.id'))
    .addPrimaryKeyConstraint('company_cargo_type_pk', ['companyId', 'cargoTypeId'])
    .execute();
  await s
    .createTable('company_delivery_type')
    .addColumn('companyId', 'integer', (c) => c.notNull().references('platform_company.id'))
    .addColumn('deliveryTypeId', 'integer', (c) => c.notNull().references('delivery_type.id'))
    .addPrimaryKeyConstraint('company_delivery_type_pk', ['companyId', 'deliveryTypeId'])
    .execute();
  await s
    .createTable('company_partnership')
    .addColumn('companyId', 'integer', (c) => c.notNull().references('platform_company.id'))
    .addColumn('partnerId', 'integer', (c) => c.notNull().references('platform_company.id'))
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('company_partnership_pk', ['companyId', 'partnerId'])
    .execute();
  await raw(db, 'create index company_partnership_partner on company_partnership ("partnerId")');

  await timestamps(
    table('platform_user')
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text')
      .addColumn('passwordHash', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('companyId', 'integer', (c) => c.notNull().references('platform_company.id'))
      .addColumn('isActive', 'integer', (c) => c.notNull().defaultTo(1)),
  ).execute();
  await raw(db, 'create index platform_user_company on platform_user ("companyId")');
  await s
    .createTable('refresh_token')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('userId', 'integer', (c) => c.notNull().references('platform_user.id'))
    .addColumn('expiresAt', 'text', (c) => c.notNull())
    .addColumn('usedAt', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .execute();
  await raw(db, 'create index refresh_token_user on refresh_token ("userId")');
  await raw(db, 'create index refresh_token_expiry on refresh_token ("expiresAt")');

  await timestamps(
    table('platform_api_key')
      .addColumn('companyId', 'integer', (c) => c.notNull().references('platform_company.id'))
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('keyHash', 'text', (c) => c.notNull().unique()),
  ).execute();
  await raw(db, 'create index platform_api_key_company on platform_api_key ("companyId", "id")');

  await timestamps(
    table('platform_webhook')
      .addColumn('companyId', 'integer', (c) => c.notNull().references('platform_company.id'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('subtype', 'text')
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('payloadTemplate', 'text')
      .addColumn('apiKey', 'text')
      .addColumn('method', 'text', (c) => c.notNull().defaultTo('POST')),
  ).execute();
  // One webhook per company per type + subtype, a missing subtype counting as one value.
  await raw(
    db,
    `create unique index platform_webhook_kind on platform_webhook ("companyId", "type", (coalesce("subtype", '')))`,
  );
  await raw(db, 'create index platform_webhook_company on platform_webhook ("companyId", "id")');

  await timestamps(
    titles(
      table('warehouse')
        .addColumn('companyId', 'integer', (c) => c.notNull().references('platform_company.id'))
        .addColumn('title', 'text', (c) => c.notNull()),
    )
      .addColumn('address', 'text')
      .addColumn('lat', 'double precision')
      .addColumn('lng', 'double precision')
      .addColumn('schedule', 'text')
      .addColumn('schedules', 'text')
      .addColumn('countryId', 'integer', (c) => c.references('platform_country.id'))
      .addColumn('cityId', 'integer', (c) => c.references('platform_city.id'))
      .addColumn('isPickupPoint', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('isActive', 'integer', (c) => c.notNull().defaultTo(1)),
  ).execute();
  await raw(db, 'create index warehouse_pickup on warehouse ("isPickupPoint", "isActive", "id")');
  await raw(db, 'create index warehouse_company on warehouse ("companyId", "id")');
  await raw(db, 'create index warehouse_city on warehouse ("cityId")');

  await timestamps(
    table('platform_client')
      .addColumn('companyId', 'integer', (c) => c.notNull().references('platform_company.id'))
      .addColumn('code', 'integer', (c) => c.notNull())
      .addColumn('name', 'text')
      .addColumn('phone', 'text')
      .addColumn('address', 'text')
      .addColumn('isActive', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('countryId', 'integer', (c) => c.references('platform_country.id'))
      .addColumn('cityId', 'integer', (c) => c.references('platform_city.id'))
      .addColumn('deliveryWarehouseCompanyId', 'integer', (c) => c.references('platform_company.id'))
      .addUniqueConstraint('platform_client_company_code', ['companyId', 'code']),
  ).execute();
  // Search by a bare code across the companies a warehouse works with.
  await raw(db, 'create index platform_client_code on platform_client ("code", "companyId")');
  await raw(db, 'create index platform_client_phone on platform_client ("companyId", "phone")');

  await timestamps(
    table('supplier')
      .addColumn('companyId', 'integer', (c) => c.notNull().references('platform_company.id'))
      .addColumn('name', 'text')
      .addColumn('phone', 'text', (c) => c.notNull())
      .addColumn('address', 'text')
      .addColumn('isActive', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('cityId', 'integer', (c) => c.references('platform_city.id'))
      .addUniqueConstraint('supplier_company_phone', ['companyId', 'phone']),
  ).execute();

  await timestamps(
    table('payment_order')
      .addColumn('companyId', 'integer', (c) => c.notNull().references('platform_company.id'))
      .addColumn('clientId', 'integer', (c) => c.references('platform_client.id'))
      .addColumn('amount', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('isPaid', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('paidAt', 'text'),
  ).execute();
  await raw(db, 'create index payment_order_company on payment_order ("companyId", "id")');
  await raw(db, 'create index payment_order_client on payment_order ("clientId")');

  const shipment = <T extends string>(t: CreateTableBuilder<T, any>) =>
    timestamps(
      t
        .addColumn('description', 'text')
        .addColumn('weight', 'double precision', (c) => c.notNull().defaultTo(0))
        .addColumn('price', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('companyId', 'integer', (c) => c.notNull().references('platform_company.id'))
        .addColumn('clientId', 'integer', (c) => c.references('platform_client.id'))
        .addColumn('clientCompanyId', 'integer')
        .addColumn('clientCode', 'integer')
        .addColumn('supplierId', 'integer', (c) => c.references('supplier.id'))
        .addColumn('cargoTypeId', 'integer', (c) => c.references('cargo_type.id'))
        .addColumn('originWarehouseId', 'integer', (c) => c.references('warehouse.id'))
        .addColumn('currentWarehouseId', 'integer', (c) => c.references('warehouse.id'))
        .addColumn('deliveryWarehouseId', 'integer', (c) => c.references('warehouse.id'))
        .addColumn('receiptCityId', 'integer', (c) => c.references('platform_city.id'))
        .addColumn('deliveryCityId', 'integer', (c) => c.references('platform_city.id'))
        .addColumn('paymentOrderId', 'integer', (c) => c.references('payment_order.id'))
        .addColumn('isPaid', 'integer')
        .addColumn('currentStatusId', 'integer')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('atPickupPoint', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('atFinalPoint', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('searchText', 'text', (c) => c.notNull().defaultTo('')),
    );

  await shipment(
    table('parcel')
      .addColumn('trackCode', 'text', (c) => c.notNull().unique())
      .addColumn('deliveryMethod', 'text')
      .addColumn('postomatId', 'text')
      .addColumn('postomatOrderId', 'text')
      .addColumn('partnerCompanyId', 'integer', (c) => c.references('platform_company.id'))
      .addColumn('redirectedAt', 'text'),
  ).execute();
  await shipmentIndexes(db, 'parcel');
  await raw(db, 'create index parcel_partner on parcel ("partnerCompanyId", "id")');
  await raw(db, 'create index parcel_postomat_order on parcel ("postomatOrderId")');

  await shipment(
    table('cargo')
      .addColumn('trackCode', 'text', (c) => c.unique())
      .addColumn('tractorNumber', 'text')
      .addColumn('cargoKind', 'text'),
  ).execute();
  await shipmentIndexes(db, 'cargo');
  await raw(db, 'create index cargo_client_company_kind on cargo ("clientCompanyId", "cargoKind", "id")');

  for (const [name, owner] of [
    ['parcel_status', 'parcel'],
    ['cargo_status', 'cargo'],
  ] as const) {
    await timestamps(
      table(name)
        .addColumn(`${owner}Id`, 'integer', (c) => c.notNull().references(`${owner}.id`))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('warehouseId', 'integer', (c) => c.references('warehouse.id'))
        .addColumn('originWarehouseId', 'integer', (c) => c.references('warehouse.id'))
        .addColumn('destinationWarehouseId', 'integer', (c) => c.references('warehouse.id'))
        .addColumn('originCityId', 'integer', (c) => c.references('platform_city.id'))
        .addColumn('destinationCityId', 'integer', (c) => c.references('platform_city.id'))
        .addColumn('userId', 'integer', (c) => c.references('platform_user.id')),
    ).execute();
    await raw(db, `create index ${name}_owner on ${name} ("${owner}Id", "id")`);
  }

  await s
    .createTable('market_idempotency')
    .addColumn('companyId', 'integer', (c) => c.notNull().references('platform_company.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('requestHash', 'text')
    .addColumn('responseStatus', 'integer')
    .addColumn('responseBody', 'text')
    .addColumn('createdAt', 'text', (c) => c.notNull())
    .addColumn('completedAt', 'text')
    .addPrimaryKeyConstraint('market_idempotency_pk', ['companyId', 'key'])
    .execute();
  await raw(db, 'create index market_idempotency_created on market_idempotency ("createdAt")');
}

/** The list filters of parcels and cargo: each one an index range ending in the id. */
async function shipmentIndexes(db: Kysely<any>, t: 'parcel' | 'cargo') {
  await raw(db, `create index ${t}_client_company on ${t} ("clientCompanyId", "id")`);
  await raw(
    db,
    `create index ${t}_client_company_status on ${t} ("clientCompanyId", "status", "atPickupPoint", "atFinalPoint", "id")`,
  );
  await raw(db, `create index ${t}_client_company_code on ${t} ("clientCompanyId", "clientCode", "id")`);
  await raw(db, `create index ${t}_client on ${t} ("clientId", "id")`);
  await raw(db, `create index ${t}_supplier on ${t} ("supplierId", "id")`);
  await raw(db, `create index ${t}_company on ${t} ("companyId", "id")`);
  await raw(db, `create index ${t}_current_warehouse on ${t} ("currentWarehouseId")`);
  await raw(db, `create index ${t}_payment_order on ${t} ("paymentOrderId")`);
}
