/**
 * What the service POSTs to integrators matches the OpenAPI document's `webhooks` (issue 17):
 * the company notification of a COMPLETED and a SUBTRACTED order, and both platform webhooks of
 * a placement and a collection, each received by a real local receiver and its body validated
 * with ajv against the documented schema (objects closed: no field beyond the documented ones).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { eventually, startReceiver, type Receiver } from '../helpers/receiver.ts';
import { finishOrder, placeOrder, seedLockerWorld, type LockerWorld } from '../helpers/locker-world.ts';
import { PASSWORD, seedPlatformWorld } from '../helpers/platform-world.ts';
import { setLockerAccess } from '../../cloud/services/platform/companies.ts';
import { DocumentCheck, readDocument } from './against-document.ts';

const LOCKER = '/api/v1/integration/company';
/** Where each documented outbound event is sent in this test. */
const PATHS = {
  '/placed': 'parcelDeliveredToPostomat',
  '/taken': 'parcelTransferredToClient',
  '/notify': 'companyOrderStatus',
} as const;

describe('outbound events match the documented webhooks', () => {
  let cloud: TestCloud;
  let lw: LockerWorld;
  let hooks: Receiver;
  before(async () => {
    hooks = await startReceiver();
    cloud = await startTestCloud(DIALECTS[0], { env: { EVENT_TIMEOUT_MS: '1000' } });
    lw = await seedLockerWorld(cloud.storage.db);
    const w = await seedPlatformWorld(cloud.storage.db);
    await setLockerAccess(
      cloud.storage.db,
      w.logist.id,
      { lockerCompanyId: lw.companyA.id, enabled: true },
      new Date(),
    );
    const admin = (
      await cloud.request('POST', '/api/v1/auth/login', { body: { email: w.admin.email, password: PASSWORD } })
    ).body.accessToken;
    const make = (body: unknown) =>
      cloud.request('POST', '/api/v1/logistic-company/webhook/create', { token: admin, body });
    assert.equal(
      (
        await make({
          type: 'PARCEL',
          subtype: 'DELIVERED_TO_POSTOMAT',
          url: `${hooks.url}/placed`,
          apiKey: 'hook-secret',
        })
      ).status,
      200,
    );
    assert.equal(
      (
        await make({
          type: 'PARCEL',
          subtype: 'TRANSFERRED_TO_CLIENT',
          url: `${hooks.url}/taken`,
          payloadTemplate: '{"status":{{status}},"postomatOrderId":"{{postomatOrderId}}"}',
        })
      ).status,
      200,
    );
    await cloud.storage.db
      .updateTable('locker_company')
      .set({ notificationUrl: `${hooks.url}/notify` })
      .where('id', '=', lw.companyA.id)
      .execute();
  });
  after(async () => {
    await cloud?.stop();
    await hooks?.close();
  });

  it('the company notification and both platform webhooks, as documented', async () => {
    const create = async () =>
      (
        await cloud.request('POST', `${LOCKER}/order/create`, {
          token: lw.companyA.key,
          body: { toUserPhone: '+996555123456', postomatId: lw.near.id, sendMessage: false },
        })
      ).body;
    const collected = await create();
    await placeOrder(cloud.storage, collected.id, lw.near.cells[0].id, cloud.clock.now());
    await finishOrder(cloud.storage, collected.id, 'COMPLETED', cloud.clock.now());
    const subtracted = await create();
    await placeOrder(cloud.storage, subtracted.id, lw.near.cells[1].id, cloud.clock.now());
    await finishOrder(cloud.storage, subtracted.id, 'SUBTRACTED', cloud.clock.now());
    // Two placements, one collection, two notifications.
    await eventually(async () =>
      assert.equal(hooks.received.length, 5, JSON.stringify(hooks.received.map((r) => r.path))),
    );

    const doc = readDocument();
    const check = new DocumentCheck(doc);
    const problems: string[] = [];
    for (const r of hooks.received) {
      const name = PATHS[r.path as keyof typeof PATHS];
      assert.ok(name, `unexpected delivery to ${r.path}`);
      const post = doc.webhooks[name].post;
      assert.match(String(r.headers['content-type']), /^application\/json/);
      problems.push(
        ...check.schemaProblems(
          post.requestBody.content['application/json'].schema,
          JSON.parse(r.body),
          `${name} ${r.path}`,
        ),
      );
      const documentsApiKey = (post.parameters as Array<{ name: string }>).some((p) => p.name === 'x-api-key');
      if (r.headers['x-api-key'] !== undefined && !documentsApiKey)
        problems.push(`${name}: x-api-key sent, not documented`);
    }
    assert.deepEqual(problems, []);
    const notified = hooks.received
      .filter((r) => r.path === '/notify')
      .map((r) => JSON.parse(r.body).status)
      .sort();
    assert.deepEqual(notified, ['COMPLETED', 'SUBTRACTED']);
    assert.ok(hooks.received.some((r) => r.path === '/placed' && r.headers['x-api-key'] === 'hook-secret'));
  });
});
