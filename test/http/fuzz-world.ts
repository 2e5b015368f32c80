/**
 * What the fuzzing suite needs to reach validation on every route: a valid credential of each
 * API family, and a valid request of each route that takes input (params, query, body), which
 * the suite then breaks one part at a time. Every route of the route table must have a
 * baseline here (a test says so), so a new route cannot escape the suite.
 */
import type { TestCloud } from '../helpers/cloud.ts';
import { PASSWORD } from '../helpers/platform-world.ts';
import { M, marketClient, newKey, seedMarketWorld } from '../helpers/market-world.ts';
import { placeOrder } from '../helpers/locker-world.ts';
import { setLockerAccess } from '../../cloud/services/platform/companies.ts';

export interface Baseline {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  headers?: () => Record<string, string>;
}

export interface FuzzWorld {
  credentialsOf(path: string): Record<string, string>;
  baselines: Record<string, Baseline>;
}

const TEMPLATE = '{"postomatOrderId":"{{postomatOrderId}}","status":{{status}}}';

export async function seedFuzzWorld(cloud: TestCloud): Promise<FuzzWorld> {
  const world = await seedMarketWorld(cloud);
  const { lw, w } = world;
  const market = marketClient(cloud, world);
  const login = await cloud.request('POST', '/api/v1/auth/login', {
    body: { email: w.admin.email, password: PASSWORD },
  });
  const { accessToken, refreshToken } = login.body;
  const lockerKey = lw.companyA.key;

  // Extensions (issue 22): a subscription, so the orders below make events; one to delete.
  const subscription = await cloud.request('POST', '/api/v1/integration/company/webhook-subscriptions', {
    token: lockerKey,
    body: { url: 'http://127.0.0.1:9/events', eventTypes: ['order.created', 'order.delivered'] },
  });
  const spareSubscription = await cloud.request('POST', '/api/v1/integration/company/webhook-subscriptions', {
    token: lockerKey,
    body: { url: 'http://127.0.0.1:9/spare', eventTypes: ['order.created'] },
  });
  const order = await cloud.request('POST', '/api/v1/integration/company/order/create', {
    token: lockerKey,
    body: { toUserPhone: '+996700000001', postomatId: lw.near.id, sendMessage: false },
  });
  // Cancelled by its baseline (a repeat answers the same); another placed, to be extended.
  const toCancel = await cloud.request('POST', '/api/v1/integration/company/order/create', {
    token: lockerKey,
    body: { toUserPhone: '+996700000004', postomatId: lw.near.id, sendMessage: false },
  });
  const toExtend = await cloud.request('POST', '/api/v1/integration/company/order/create', {
    token: lockerKey,
    body: { toUserPhone: '+996700000005', postomatId: lw.near.id, sendMessage: false },
  });
  // Redirected by its baseline to the far locker (a repeat is no change: the order is there).
  const toRedirect = await cloud.request('POST', '/api/v1/integration/company/order/create', {
    token: lockerKey,
    body: { toUserPhone: '+996700000006', postomatId: lw.near.id, sendMessage: false },
  });
  // Returns: a return, for its drop-off QR code.
  const aReturn = await cloud.request('POST', '/api/v1/integration/company/order/create', {
    token: lockerKey,
    body: { toUserPhone: '+996700000007', postomatId: lw.near.id, sendMessage: false, kind: 'RETURN' },
  });
  await placeOrder(cloud.storage, toExtend.body.id, lw.near.cells[0].id, new Date());
  const events = await cloud.request('GET', '/api/v1/integration/company/webhook-subscriptions/events', {
    token: lockerKey,
  });
  const eventId = events.body?.data?.[0]?.id as string;
  const parcel = await market.create(market.body({ trackCode: 'FUZZ-1' }));
  const webhook = await cloud.request('POST', '/api/v1/logistic-company/webhook/create', {
    token: accessToken,
    body: {
      type: 'PARCEL',
      subtype: 'DELIVERED_TO_POSTOMAT',
      url: 'http://127.0.0.1:9/hook',
      payloadTemplate: TEMPLATE,
    },
  });
  // Platform subscriptions (issue 22): Silk Road linked to company B, whose placed order makes its event.
  const PS = '/api/v1/logistic-company/webhook-subscriptions';
  await setLockerAccess(cloud.storage.db, w.logist.id, { lockerCompanyId: lw.companyB.id, enabled: true }, new Date());
  const platformSub = await cloud.request('POST', PS, {
    token: accessToken,
    body: { url: 'http://127.0.0.1:9/parcels', eventTypes: ['parcel.delivered_to_postomat'] },
  });
  const sparePlatformSub = await cloud.request('POST', PS, {
    token: accessToken,
    body: { url: 'http://127.0.0.1:9/spare', eventTypes: ['parcel.transferred_to_client'] },
  });
  const platformOrder = await cloud.request('POST', '/api/v1/integration/company/order/create', {
    token: lw.companyB.key,
    body: { toUserPhone: '+996700000006', postomatId: lw.mid.id, sendMessage: false },
  });
  await placeOrder(cloud.storage, platformOrder.body.id, lw.mid.cells[0].id, new Date());
  const platformEvents = await cloud.request('GET', `${PS}/events`, { token: accessToken });
  const platformEventId = platformEvents.body?.data?.[0]?.id as string;
  for (const res of [platformSub, sparePlatformSub, platformOrder, platformEvents]) {
    if (res.status >= 300 || !platformEventId)
      throw new Error(`fuzz world: platform subscription setup failed ${res.status} ${res.text}`);
  }
  // Deleted by the baseline request; never the key the suite authenticates with.
  const spareKey = await cloud.request('POST', '/api/v1/logistic-company/api-key/create', {
    token: accessToken,
    body: { title: 'spare' },
  });
  for (const res of [
    login,
    order,
    parcel,
    webhook,
    spareKey,
    subscription,
    spareSubscription,
    toCancel,
    toExtend,
    toRedirect,
    events,
    aReturn,
  ]) {
    if (res.status >= 300) throw new Error(`fuzz world: setup request failed ${res.status} ${res.text}`);
  }

  const L = '/api/v1/integration/company';
  const I = '/api/v1/integrations';
  const paging = { page: '1', pageSize: '10' };
  const baselines: Record<string, Baseline> = {
    [`POST ${L}/order/create`]: {
      body: {
        toUserPhone: '+996700000002',
        postomatId: lw.near.id,
        sendMessage: false,
        days: 2,
        weight: 1,
        customData: 'ref-1',
        pay: false,
      },
    },
    [`GET ${L}/order/list`]: { query: { ...paging, withCell: 'true' } },
    [`GET ${L}/order/:id`]: { params: { id: order.body.id }, query: { withStatuses: 'true' } },
    [`GET ${L}/order/:id/down-code`]: { params: { id: order.body.id } },
    [`GET ${L}/order/:id/up-code`]: { params: { id: order.body.id } },
    [`GET ${L}/order/:id/subtract-code`]: { params: { id: order.body.id } },
    [`POST ${L}/order/:id/cancel`]: {
      params: { id: toCancel.body.id },
      headers: () => ({ 'Idempotency-Key': newKey() }),
    },
    [`POST ${L}/order/:id/extend`]: { params: { id: toExtend.body.id }, body: { days: 1 } },
    [`POST ${L}/order/:id/redirect`]: { params: { id: toRedirect.body.id }, body: { postomatId: lw.far.id } },
    [`GET ${L}/postomat/:id/availability`]: { params: { id: lw.near.id } },
    [`GET ${L}/order/:id/qr.svg`]: { params: { id: aReturn.body.id } },
    [`GET ${L}/webhook-subscriptions`]: {},
    [`POST ${L}/webhook-subscriptions`]: { body: { url: 'http://127.0.0.1:9/more', eventTypes: ['order.completed'] } },
    [`GET ${L}/webhook-subscriptions/events`]: { query: { limit: '5' } },
    [`GET ${L}/webhook-subscriptions/events/:id/deliveries`]: { params: { id: eventId } },
    [`POST ${L}/webhook-subscriptions/events/:id/replay`]: {
      params: { id: eventId },
      body: { subscriptionId: subscription.body.id },
    },
    [`DELETE ${L}/webhook-subscriptions/:id`]: { params: { id: spareSubscription.body.id } },
    [`POST ${L}/webhook-subscriptions/:id/rotate-secret`]: {
      params: { id: subscription.body.id },
      body: { overlapHours: 1 },
    },
    [`GET ${L}/postomat/list`]: { query: { ...paging, cityId: lw.bishkek.id, latitude: '42.8', longitude: '74.6' } },
    [`GET ${L}/postomat/:id`]: { params: { id: lw.near.id }, query: { withCells: 'true' } },
    [`GET ${L}/cell/:postomatId/free-cells`]: { params: { postomatId: lw.near.id } },
    [`GET ${L}/country`]: { query: { withCities: 'true' } },
    [`GET ${L}/city`]: { query: paging },
    [`GET ${L}/city/:id`]: { params: { id: lw.bishkek.id }, query: { withCountry: 'true' } },
    [`GET ${L}/district/list`]: { query: { ...paging, cityId: lw.bishkek.id } },
    'GET /api/v1/open-api/postomat/list': { query: paging },
    'GET /api/v1/public/postomat/map/:shortId': { params: { shortId: 'ZETA01' } },
    'GET /api/v1/public/postomat/:shortId': { params: { shortId: 'ZETA01' } },
    'POST /api/v1/auth/login': { body: { email: w.user.email, password: PASSWORD } },
    'POST /api/v1/auth/refresh': { body: { refreshToken } },
    'POST /api/v1/logistic-company/api-key/create': { body: { title: 'fuzz' } },
    'GET /api/v1/logistic-company/api-key/list': { query: paging },
    'DELETE /api/v1/logistic-company/api-key/:id': { params: { id: String(spareKey.body.id) } },
    'POST /api/v1/logistic-company/webhook/create': {
      body: { type: 'CARGO', subtype: 'ITEM_CREATED', url: 'http://127.0.0.1:9/cargo', apiKey: 'k' },
    },
    'GET /api/v1/logistic-company/webhook/list': { query: paging },
    'PATCH /api/v1/logistic-company/webhook/:id': {
      params: { id: String(webhook.body.id) },
      body: { url: 'http://127.0.0.1:9/other', payloadTemplate: TEMPLATE, apiKey: 'k2' },
    },
    'DELETE /api/v1/logistic-company/webhook/:id': { params: { id: String(webhook.body.id) } },
    [`GET ${PS}`]: {},
    [`POST ${PS}`]: { body: { url: 'http://127.0.0.1:9/more', eventTypes: ['parcel.transferred_to_client'] } },
    [`GET ${PS}/events`]: { query: { limit: '5' } },
    [`GET ${PS}/events/:id/deliveries`]: { params: { id: platformEventId } },
    [`POST ${PS}/events/:id/replay`]: {
      params: { id: platformEventId },
      body: { subscriptionId: platformSub.body.id },
    },
    [`DELETE ${PS}/:id`]: { params: { id: sparePlatformSub.body.id } },
    [`POST ${PS}/:id/rotate-secret`]: { params: { id: platformSub.body.id }, body: { overlapHours: 1 } },
    [`GET ${I}/postomat/list`]: { query: { ...paging, cityId: lw.bishkek.id } },
    [`GET ${I}/postomat/city`]: { query: paging },
    [`GET ${I}/postomat/city/:id`]: { params: { id: lw.bishkek.id }, query: { withCountry: 'true' } },
    [`POST ${I}/postomat/order/create`]: {
      body: { toUserPhone: '+996700000003', postomatId: lw.near.id, weight: 1, days: 2, customData: 'ref-2' },
    },
    [`GET ${I}/postomat/order/list`]: { query: paging },
    [`GET ${I}/postomat/order/:id`]: { params: { id: order.body.id }, query: { withCell: 'true' } },
    [`GET ${I}/postomat/order/:id/down-code`]: { params: { id: order.body.id } },
    [`GET ${I}/postomat/order/:id/up-code`]: { params: { id: order.body.id } },
    [`GET ${I}/postomat/order/:id/subtract-code`]: { params: { id: order.body.id } },
    [`GET ${I}/postomat/:id`]: { params: { id: lw.near.id }, query: { withCity: 'true' } },
    [`GET ${M}/opp/list`]: { query: { ...paging, cityId: String(w.bishkek.id), ids: String(w.pvz.id) } },
    [`GET ${M}/opp/city`]: { query: paging },
    [`GET ${M}/opp/city/:id`]: { params: { id: String(w.bishkek.id) }, query: { withCountry: 'true' } },
    [`GET ${M}/opp/:id`]: { params: { id: String(w.pvz.id) }, query: { withCity: 'true' } },
    [`GET ${M}/order/list`]: { query: paging },
    [`GET ${M}/order/:id`]: { params: { id: order.body.id } },
    [`POST ${M}/parcel/create`]: { body: market.body(), headers: () => ({ 'Idempotency-Key': newKey() }) },
    [`GET ${M}/parcel/track-code/:trackCode`]: { params: { trackCode: 'FUZZ-1' } },
    [`GET ${M}/parcel/track-code/:trackCode/status`]: { params: { trackCode: 'FUZZ-1' } },
    [`PUT ${M}/parcel/track-code/:trackCode/redirect`]: {
      params: { trackCode: 'FUZZ-1' },
      body: { toWarehouseId: w.pvz.id },
    },
    [`GET ${I}/client/search-by-code`]: { query: { search: 'SRL-1', cargoTypes: 'CARGO' } },
    [`GET ${I}/client/:id`]: { params: { id: String(w.aibek.id) } },
    [`GET ${I}/courier-company/:id`]: { params: { id: String(w.courier.id) } },
    [`GET ${I}/logistic-company/list`]: { query: { isIntercity: 'true' } },
    [`GET ${I}/logistic-company/countries`]: {},
    [`GET ${I}/logistic-company/:id`]: { params: { id: String(w.logist.id) } },
    [`GET ${I}/logistic-company/supplier/by-phone`]: { query: { phone: '+8613800000000' } },
    [`GET ${I}/logistic-company/supplier/:id/parcels`]: {
      params: { id: String(w.supplier.id) },
      query: { ...paging, search: 'toys' },
    },
    [`GET ${I}/logistic-company/parcel/list`]: { query: { ...paging, search: 'x', statuses: 'ARRIVED' } },
    [`GET ${I}/logistic-company/cargo/list`]: { query: { ...paging, search: 'x', cargoTypes: 'CARGO' } },
    'GET /api/v1/public/cargo-types': { query: { types: 'CARGO' } },
    // A code of the right shape that no operator issued: the refusal is documented (404), and nothing is used up.
    'POST /api/v1/agent/enrol': { body: { code: 'ABCD-EFGH' } },
    'GET /health': {},
    'GET /api/v1/openapi.json': {},
    'GET /asyncapi.json': {},
    'GET /docs': {},
    'GET /docs/redoc.standalone.js': {},
    'GET /ready': {},
  };

  const credentialsOf = (path: string): Record<string, string> => {
    if (path.startsWith(`${L}/`)) return { authorization: `Bearer ${lockerKey}` };
    if (path.startsWith('/api/v1/logistic-company/')) return { authorization: `Bearer ${accessToken}` };
    if (path.startsWith(`${I}/market-company/`) || path.startsWith(`${I}/postomat/`))
      return { 'x-api-token': world.keys.market };
    if (path.startsWith(`${I}/`)) return { 'x-api-token': w.keys.logist.key };
    return {};
  };
  return { credentialsOf, baselines };
}
