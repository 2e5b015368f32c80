/**
 * Isolation: every read and write of one company's objects with another company's credentials
 * answers "not found" (or the spec's status for it), for two companies of every type. Driven by
 * one table of endpoints × objects: each row names its objects, who may see each one, the
 * request, what an allowed caller gets (the object itself, compared by id and fields) and what
 * everyone else gets (compared as a whole body, or by the ids of a list). Every caller of the
 * row's kind is tried on every object, the allowed ones too, so a refusal is never vacuous.
 *
 * A new endpoint is one more row.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud, type TestResponse } from '../helpers/cloud.ts';
import {
  seedIsolationWorld,
  type IsolationWorld,
  type LockerTenant,
  type PlatformTenant,
} from '../helpers/isolation-world.ts';

const LOCKER = '/api/v1/integration/company';
const I = '/api/v1/integrations';

/** The spec's error body. */
const ERROR_NAMES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  406: 'Not Acceptable',
  502: 'Bad Gateway',
};
const error = (statusCode: number, message: string) => ({
  status: statusCode,
  body: { statusCode, error: ERROR_NAMES[statusCode], message },
});
const LOCKER_ACCESS_OFF = 'Locker access is not enabled for this company';

interface Obj {
  /** for reports: whose object, of what kind */
  label: string;
  /** the id the request uses (a record id, a track code, a phone) */
  ref: string | number;
  /** the id the answer shows when it is this object */
  id: string | number;
  /** callers (tenant names) that may see it */
  allowed: ReadonlySet<string>;
}

type Caller = { name: string; locker?: LockerTenant; platform?: PlatformTenant };
type Expected = { status: number; body?: unknown; absentFrom?: (res: TestResponse) => Array<string | number> };

interface Row {
  name: string;
  /** whose credentials the row is called with */
  auth: 'locker key' | 'platform key' | 'platform admin';
  objects(w: IsolationWorld): Obj[];
  request(o: Obj, c: Caller): { method: string; path: string; body?: unknown; headers?: Record<string, string> };
  /** the answer of an allowed caller shows this object: returns what to compare with o.id */
  shows(res: TestResponse): string | number | Array<string | number> | undefined;
  /** what everyone else gets */
  refused(o: Obj, c: Caller): Expected;
  /** a write: the allowed callers are not tried (it would change the object); the object is read afterwards */
  write?: { unchanged(w: IsolationWorld, o: Obj, cloud: TestCloud): Promise<void> };
}

const names = (xs: Array<{ name: string }>) => new Set(xs.map((x) => x.name));
const idsOf = (res: TestResponse): Array<string | number> =>
  (Array.isArray(res.body) ? res.body : (res.body?.data ?? [])).map((x: any) => x.id);

/** Objects of the world, with who may see them (the documented sharing rules). */
const objects = {
  lockerOrders: (w: IsolationWorld, via: 'locker' | 'platform'): Obj[] => {
    const orders = w.lockerTenants.map((l) => ({ l, id: l.order }));
    for (const m of w.tenants.filter((t) => t.marketLockerOrder))
      orders.push({ l: w.lockerTenants.find((x) => x.id === m.lockerCompanyId)!, id: m.marketLockerOrder! });
    return orders.map(({ l, id }) => ({
      label: `order ${id} of ${l.name}`,
      ref: id,
      id,
      // Through the platform a company acts as its linked locker company and sees all of its orders.
      allowed: via === 'locker' ? new Set([l.name]) : names(w.tenants.filter((t) => t.lockerCompanyId === l.id)),
    }));
  },
  of: <K extends keyof PlatformTenant>(
    w: IsolationWorld,
    field: K,
    kind: string,
    ref: (t: PlatformTenant) => string | number,
    id: (t: PlatformTenant) => string | number,
    allowed: (t: PlatformTenant) => PlatformTenant[],
  ): Obj[] =>
    w.tenants
      .filter((t) => t[field] !== undefined)
      .map((t) => ({ label: `${kind} of ${t.name}`, ref: ref(t), id: id(t), allowed: names(allowed(t)) })),
};

/** A LOGIST's clients are also read by the warehouses that work with it (README: client read scope). */
const withWarehouses = (w: IsolationWorld) => (t: PlatformTenant) => [
  t,
  ...w.tenants.filter((x) => x.type === 'WAREHOUSE' && x.partner === t.id),
];
const only = (t: PlatformTenant) => [t];

/** A receiver or sender for a marketplace parcel: the caller's own country and city. */
let places: { country: number; city: number } = { country: 0, city: 0 };
const party = (_c: Caller) => ({ name: 'Intruder', phone: '+996700999999', address: 'Chui 1', ...places });

const marketOnly = (c: Caller, notFound: Expected): Expected =>
  c.platform?.type === 'MARKETPLACE' ? notFound : error(403, 'FORBIDDEN');
const viaLocker = (c: Caller): Expected =>
  c.platform?.lockerCompanyId ? error(502, 'ORDER_NOT_FOUND') : error(502, LOCKER_ACCESS_OFF);

const ROWS: Row[] = [
  // Locker API
  ...(['', '/down-code', '/up-code', '/subtract-code'] as const).map(
    (tail): Row => ({
      name: `GET ${LOCKER}/order/{id}${tail}`,
      auth: 'locker key',
      objects: (w) => objects.lockerOrders(w, 'locker'),
      request: (o) => ({ method: 'GET', path: `${LOCKER}/order/${o.ref}${tail}` }),
      shows: (res) =>
        tail ? (res.body?.orderId ?? res.body?.order?.id ?? (res.status === 200 ? 'a code' : undefined)) : res.body?.id,
      refused: () => error(404, 'ORDER_NOT_FOUND'),
    }),
  ),
  {
    name: `GET ${LOCKER}/order/list`,
    auth: 'locker key',
    objects: (w) => objects.lockerOrders(w, 'locker'),
    request: () => ({ method: 'GET', path: `${LOCKER}/order/list?page=1&pageSize=100` }),
    shows: idsOf,
    refused: () => ({ status: 200, absentFrom: idsOf }),
  },
  // Locker access through the platform
  ...(['', '/down-code', '/up-code', '/subtract-code'] as const).map(
    (tail): Row => ({
      name: `GET ${I}/postomat/order/{id}${tail}`,
      auth: 'platform key',
      objects: (w) => objects.lockerOrders(w, 'platform'),
      request: (o) => ({ method: 'GET', path: `${I}/postomat/order/${o.ref}${tail}` }),
      shows: (res) => (tail ? (res.status === 200 && res.body?.password ? 'a code' : undefined) : res.body?.id),
      refused: (_o, c) => viaLocker(c),
    }),
  ),
  {
    name: `GET ${I}/postomat/order/list`,
    auth: 'platform key',
    objects: (w) => objects.lockerOrders(w, 'platform'),
    request: () => ({ method: 'GET', path: `${I}/postomat/order/list?page=1&pageSize=500` }),
    shows: idsOf,
    refused: (_o, c) =>
      c.platform?.lockerCompanyId ? { status: 200, absentFrom: idsOf } : error(502, LOCKER_ACCESS_OFF),
  },
  // Clients, suppliers, parcels, cargo of logistics companies
  {
    name: `GET ${I}/client/{id}`,
    auth: 'platform key',
    objects: (w) =>
      objects.of(
        w,
        'client',
        'client',
        (t) => t.client!.id,
        (t) => t.client!.id,
        withWarehouses(w),
      ),
    request: (o) => ({ method: 'GET', path: `${I}/client/${o.ref}` }),
    shows: (res) => res.body?.id,
    refused: () => ({ status: 200, body: null }),
  },
  {
    name: `GET ${I}/client/search-by-code`,
    auth: 'platform key',
    objects: (w) =>
      objects.of(
        w,
        'client',
        'client',
        (t) => `${t.client!.codeName}-${t.client!.code}`,
        (t) => t.client!.id,
        withWarehouses(w),
      ),
    request: (o) => ({ method: 'GET', path: `${I}/client/search-by-code?search=${o.ref}` }),
    shows: idsOf,
    refused: () => ({ status: 200, body: [] }),
  },
  {
    name: `GET ${I}/logistic-company/supplier/by-phone`,
    auth: 'platform key',
    objects: (w) =>
      objects.of(
        w,
        'supplier',
        'supplier',
        (t) => t.supplier!.phone,
        (t) => t.supplier!.id,
        only,
      ),
    request: (o) => ({
      method: 'GET',
      path: `${I}/logistic-company/supplier/by-phone?phone=${encodeURIComponent(String(o.ref))}`,
    }),
    shows: (res) => res.body?.id,
    refused: () => ({ status: 200, body: null }),
  },
  {
    name: `GET ${I}/logistic-company/supplier/{id}/parcels`,
    auth: 'platform key',
    objects: (w) =>
      objects.of(
        w,
        'supplier',
        'supplier',
        (t) => t.supplier!.id,
        (t) => t.parcel!,
        only,
      ),
    request: (o) => ({ method: 'GET', path: `${I}/logistic-company/supplier/${o.ref}/parcels` }),
    shows: idsOf,
    refused: () => error(404, 'Supplier not found'),
  },
  {
    name: `GET ${I}/logistic-company/parcel/list`,
    auth: 'platform key',
    objects: (w) =>
      objects.of(
        w,
        'parcel',
        'parcel',
        (t) => t.parcel!,
        (t) => t.parcel!,
        only,
      ),
    request: () => ({ method: 'GET', path: `${I}/logistic-company/parcel/list?page=1&pageSize=100` }),
    shows: idsOf,
    refused: () => ({ status: 200, absentFrom: idsOf }),
  },
  {
    name: `GET ${I}/logistic-company/cargo/list`,
    auth: 'platform key',
    objects: (w) =>
      objects.of(
        w,
        'cargo',
        'cargo',
        (t) => t.cargo!,
        (t) => t.cargo!,
        only,
      ),
    request: () => ({ method: 'GET', path: `${I}/logistic-company/cargo/list?page=1&pageSize=100` }),
    shows: idsOf,
    refused: () => ({ status: 200, absentFrom: idsOf }),
  },
  // Marketplaces
  ...(['', '/status'] as const).map(
    (tail): Row => ({
      name: `GET ${I}/market-company/parcel/track-code/{trackCode}${tail}`,
      auth: 'platform key',
      objects: (w) => [
        ...objects.of(
          w,
          'trackCode',
          'pickup parcel',
          (t) => t.trackCode!,
          (t) => t.trackCode!,
          only,
        ),
        ...objects.of(
          w,
          'lockerParcelTrackCode',
          'locker parcel',
          (t) => t.lockerParcelTrackCode!,
          (t) => t.lockerParcelTrackCode!,
          only,
        ),
      ],
      request: (o) => ({ method: 'GET', path: `${I}/market-company/parcel/track-code/${o.ref}${tail}` }),
      shows: (res) => res.body?.trackCode ?? res.body?.parcel?.trackCode,
      refused: (_o, c) => marketOnly(c, error(404, 'PARCEL_NOT_FOUND')),
    }),
  ),
  {
    name: `PUT ${I}/market-company/parcel/track-code/{trackCode}/redirect`,
    auth: 'platform key',
    objects: (w) =>
      objects.of(
        w,
        'trackCode',
        'pickup parcel',
        (t) => t.trackCode!,
        (t) => t.trackCode!,
        only,
      ),
    // Redirected to the caller's own pickup point: only the parcel is foreign.
    request: (o, c) => ({
      method: 'PUT',
      path: `${I}/market-company/parcel/track-code/${o.ref}/redirect`,
      body: { toWarehouseId: c.platform?.pickupPoint ?? 1 },
    }),
    shows: (res) => res.body?.parcel?.trackCode,
    refused: (_o, c) => marketOnly(c, error(404, 'PARCEL_NOT_FOUND')),
    write: {
      async unchanged(w, o, cloud) {
        const owner = w.tenants.find((t) => t.trackCode === o.ref)!;
        const res = await cloud.request('GET', `${I}/market-company/parcel/track-code/${o.ref}/status`, {
          headers: { 'x-api-token': owner.key },
        });
        assert.deepEqual(res.body, { trackCode: o.ref, status: 'CREATED' }, `${o.label} not redirected`);
        const parcel = await cloud.request('GET', `${I}/market-company/parcel/track-code/${o.ref}`, {
          headers: { 'x-api-token': owner.key },
        });
        assert.equal(
          parcel.body.deliveryWarehouseId ?? parcel.body.parcel?.deliveryWarehouseId,
          owner.pickupPoint,
          `${o.label} still goes to its pickup point`,
        );
      },
    },
  },
  {
    name: `POST ${I}/market-company/parcel/create (to another's pickup point)`,
    auth: 'platform key',
    objects: (w) =>
      objects.of(
        w,
        'pickupPoint',
        'pickup point',
        (t) => t.pickupPoint!,
        (t) => t.pickupPoint!,
        only,
      ),
    request: (o, c) => ({
      method: 'POST',
      path: `${I}/market-company/parcel/create`,
      headers: { 'Idempotency-Key': `intruder-${c.name}-${o.ref}` },
      body: {
        deliveryMethod: 'PICKUP',
        warehouseId: o.ref,
        weight: 1,
        currency: 'KGS',
        trackCode: `ISO-INTRUDER-${c.name.replace(' ', '')}-${o.ref}`,
        receiver: party(c),
        sender: party(c),
      },
    }),
    shows: () => undefined,
    refused: (_o, c) => marketOnly(c, error(404, 'WAREHOUSE_NOT_FOUND')),
    write: {
      async unchanged(_w, o, cloud) {
        const made = await cloud.storage.db
          .selectFrom('parcel')
          .select('trackCode')
          .where('trackCode', 'like', 'ISO-INTRUDER-%')
          .execute();
        assert.deepEqual(made, [], `no parcel made for ${o.label}`);
      },
    },
  },
  {
    name: `PUT ${I}/market-company/parcel/track-code/{trackCode}/redirect (own parcel, another's pickup point)`,
    auth: 'platform key',
    objects: (w) =>
      objects.of(
        w,
        'pickupPoint',
        'pickup point',
        (t) => t.pickupPoint!,
        (t) => t.pickupPoint!,
        only,
      ),
    request: (o, c) => ({
      method: 'PUT',
      path: `${I}/market-company/parcel/track-code/${c.platform?.trackCode ?? 'NONE'}/redirect`,
      body: { toWarehouseId: o.ref },
    }),
    shows: () => undefined,
    // The spec names a missing redirect target COMPANY_NOT_FOUND.
    refused: (_o, c) => marketOnly(c, error(404, 'COMPANY_NOT_FOUND')),
    write: {
      async unchanged(w, o, cloud) {
        for (const m of w.tenants.filter((t) => t.trackCode)) {
          const res = await cloud.request('GET', `${I}/market-company/parcel/track-code/${m.trackCode}/status`, {
            headers: { 'x-api-token': m.key },
          });
          assert.deepEqual(
            res.body,
            { trackCode: m.trackCode, status: 'CREATED' },
            `${m.name}'s parcel not redirected to ${o.label}`,
          );
        }
      },
    },
  },
  {
    name: `GET ${I}/market-company/order/{id}`,
    auth: 'platform key',
    objects: (w) =>
      objects.of(
        w,
        'marketLockerOrder',
        'marketplace locker order',
        (t) => t.marketLockerOrder!,
        (t) => t.marketLockerOrder!,
        only,
      ),
    request: (o) => ({ method: 'GET', path: `${I}/market-company/order/${o.ref}` }),
    shows: (res) => res.body?.postomatOrder?.id,
    refused: (_o, c) => marketOnly(c, error(404, 'ORDER_NOT_FOUND')),
  },
  {
    name: `GET ${I}/market-company/order/list`,
    auth: 'platform key',
    objects: (w) =>
      objects.of(
        w,
        'marketLockerOrder',
        'marketplace locker order',
        (t) => t.marketLockerOrder!,
        (t) => t.marketLockerOrder!,
        (t) => w.tenants.filter((x) => x.type === 'MARKETPLACE' && x.lockerCompanyId === t.lockerCompanyId),
      ),
    request: () => ({ method: 'GET', path: `${I}/market-company/order/list?page=1&pageSize=500` }),
    shows: idsOf,
    refused: (_o, c) => marketOnly(c, { status: 200, absentFrom: idsOf }),
  },
  {
    name: `GET ${I}/market-company/opp/{id}`,
    auth: 'platform key',
    objects: (w) =>
      objects.of(
        w,
        'pickupPoint',
        'pickup point',
        (t) => t.pickupPoint!,
        (t) => t.pickupPoint!,
        only,
      ),
    request: (o) => ({ method: 'GET', path: `${I}/market-company/opp/${o.ref}` }),
    shows: (res) => res.body?.id,
    refused: (_o, c) => marketOnly(c, error(404, 'WAREHOUSE_NOT_FOUND')),
  },
  {
    name: `GET ${I}/market-company/opp/list`,
    auth: 'platform key',
    objects: (w) =>
      objects.of(
        w,
        'pickupPoint',
        'pickup point',
        (t) => t.pickupPoint!,
        (t) => t.pickupPoint!,
        only,
      ),
    request: () => ({ method: 'GET', path: `${I}/market-company/opp/list?page=1&pageSize=500` }),
    shows: idsOf,
    refused: (_o, c) => marketOnly(c, { status: 200, absentFrom: idsOf }),
  },
  // Administrators: API keys and webhooks
  {
    name: 'GET /api/v1/logistic-company/api-key/list',
    auth: 'platform admin',
    objects: (w) =>
      objects.of(
        w,
        'apiKeyId',
        'API key',
        (t) => t.apiKeyId,
        (t) => t.apiKeyId,
        only,
      ),
    request: () => ({ method: 'GET', path: '/api/v1/logistic-company/api-key/list?page=1&pageSize=100' }),
    shows: idsOf,
    refused: () => ({ status: 200, absentFrom: idsOf }),
  },
  {
    name: 'DELETE /api/v1/logistic-company/api-key/{id}',
    auth: 'platform admin',
    objects: (w) =>
      objects.of(
        w,
        'apiKeyId',
        'API key',
        (t) => t.apiKeyId,
        (t) => t.apiKeyId,
        only,
      ),
    request: (o) => ({ method: 'DELETE', path: `/api/v1/logistic-company/api-key/${o.ref}` }),
    shows: () => undefined,
    refused: () => error(406, 'NOT_ACCEPTABLE'),
    write: {
      async unchanged(w, o, cloud) {
        const owner = w.tenants.find((t) => t.apiKeyId === o.ref)!;
        const res = await cloud.request('GET', `${I}/logistic-company/list`, { headers: { 'x-api-token': owner.key } });
        assert.equal(res.status, 200, `${o.label} still works`);
      },
    },
  },
  {
    name: 'GET /api/v1/logistic-company/webhook/list',
    auth: 'platform admin',
    objects: (w) =>
      objects.of(
        w,
        'webhook',
        'webhook',
        (t) => t.webhook!,
        (t) => t.webhook!,
        only,
      ),
    request: () => ({ method: 'GET', path: '/api/v1/logistic-company/webhook/list?page=1&pageSize=100' }),
    shows: idsOf,
    refused: (_o, c) => (c.platform?.type === 'LOGIST' ? { status: 200, absentFrom: idsOf } : error(403, 'FORBIDDEN')),
  },
  ...(['PATCH', 'DELETE'] as const).map(
    (method): Row => ({
      name: `${method} /api/v1/logistic-company/webhook/{id}`,
      auth: 'platform admin',
      objects: (w) =>
        objects.of(
          w,
          'webhook',
          'webhook',
          (t) => t.webhook!,
          (t) => t.webhook!,
          only,
        ),
      request: (o) => ({
        method,
        path: `/api/v1/logistic-company/webhook/${o.ref}`,
        body: method === 'PATCH' ? { url: 'https://attacker.example/steal', apiKey: null } : undefined,
      }),
      shows: () => undefined,
      refused: (_o, c) => (c.platform?.type === 'LOGIST' ? error(406, 'NOT_ACCEPTABLE') : error(403, 'FORBIDDEN')),
      write: {
        async unchanged(w, o, cloud) {
          const row = await cloud.storage.db
            .selectFrom('platform_webhook')
            .select(['id', 'url', 'apiKey', 'companyId'])
            .where('id', '=', Number(o.ref))
            .executeTakeFirst();
          const owner = w.tenants.find((t) => t.webhook === o.ref)!;
          assert.deepEqual(
            row,
            {
              id: o.ref,
              url: `https://hooks.${owner.name.toLowerCase().replace(' ', '')}.example/placed`,
              apiKey: `hook-secret-${owner.name.slice(-1)}`,
              companyId: owner.id,
            },
            `${o.label} unchanged`,
          );
        },
      },
    }),
  ),
];

function callers(w: IsolationWorld, auth: Row['auth']): Caller[] {
  return auth === 'locker key'
    ? w.lockerTenants.map((l) => ({ name: l.name, locker: l }))
    : w.tenants.map((t) => ({ name: t.name, platform: t }));
}

function credentials(c: Caller, auth: Row['auth']): Record<string, string> {
  if (auth === 'locker key') return { authorization: `Bearer ${c.locker!.key}` };
  if (auth === 'platform key') return { 'x-api-token': c.platform!.key };
  return { authorization: `Bearer ${c.platform!.adminToken}` };
}

for (const dialect of DIALECTS) {
  describe(`[${dialect.name}] isolation: another company's objects are not found`, () => {
    let cloud: TestCloud;
    let w: IsolationWorld;
    before(async () => {
      cloud = await startTestCloud(dialect);
      w = await seedIsolationWorld(cloud);
      places = { country: w.kg.id, city: w.bishkek.id };
    });
    after(() => cloud.stop());

    it('has two companies of every type, each with its own objects', () => {
      assert.equal(w.lockerTenants.length, 2);
      for (const type of ['LOGIST', 'WAREHOUSE', 'MARKETPLACE', 'COURIER'])
        assert.equal(w.tenants.filter((t) => t.type === type).length, 2, type);
    });

    for (const row of ROWS) {
      it(row.name, async () => {
        const problems: string[] = [];
        let allowedSeen = 0;
        let refusedSeen = 0;
        for (const o of row.objects(w)) {
          for (const c of callers(w, row.auth)) {
            const mayRead = o.allowed.has(c.name);
            if (mayRead && row.write) continue;
            const { method, path, body, headers } = row.request(o, c);
            const res = await cloud.request(method, path, {
              body,
              headers: { ...headers, ...credentials(c, row.auth) },
            });
            const where = `${c.name} → ${o.label}: ${res.status} ${res.text.slice(0, 200)}`;
            if (mayRead) {
              allowedSeen++;
              const shown = row.shows(res);
              const ok =
                res.status === 200 &&
                (Array.isArray(shown)
                  ? shown.includes(o.id)
                  : shown === o.id || (shown === 'a code' && typeof o.id === 'string'));
              if (!ok) problems.push(`allowed but not shown: ${where}`);
              continue;
            }
            refusedSeen++;
            const expected = row.refused(o, c);
            if (res.status !== expected.status) problems.push(`expected ${expected.status}: ${where}`);
            else if (expected.absentFrom) {
              if (expected.absentFrom(res).includes(o.id)) problems.push(`listed to another company: ${where}`);
            } else if (JSON.stringify(res.body ?? null) !== JSON.stringify(expected.body ?? null)) {
              problems.push(`expected ${JSON.stringify(expected.body)}: ${where}`);
            }
          }
          if (row.write) await row.write.unchanged(w, o, cloud).catch((err) => problems.push(String(err.message)));
        }
        assert.deepEqual(problems, []);
        assert.ok(refusedSeen > 0, 'someone was refused');
        if (!row.write) assert.ok(allowedSeen > 0, 'someone was allowed');
      });
    }
  });
}
