import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventsForTransition, type TransitionFacts } from '../../cloud/domain/order-events.ts';
import { webhookBody } from '../../cloud/events/webhook-body.ts';
import { maskCode, maskPhone, smsText } from '../../cloud/events/sms.ts';

const facts = (over: Partial<TransitionFacts>): TransitionFacts => ({
  orderId: 'o1',
  to: 'DELIVERED',
  sendMessage: true,
  recipientPhone: '+996555123456',
  companyNotificationUrl: 'http://company/hook',
  webhooks: [{ url: 'http://wh', payloadTemplate: null, apiKey: 'k' }],
  ...over,
});
const kinds = (f: Partial<TransitionFacts>) => eventsForTransition(facts(f)).map((e) => `${e.kind}:${e.event}`);

describe('which transitions send what', () => {
  it('placement: SMS (with sendMessage) and DELIVERED_TO_POSTOMAT webhooks, never a company notification', () => {
    assert.deepEqual(kinds({ to: 'DELIVERED' }), ['SMS:PICKUP_CODE', 'WEBHOOK:DELIVERED_TO_POSTOMAT']);
    assert.deepEqual(kinds({ to: 'DELIVERED', sendMessage: false }), ['WEBHOOK:DELIVERED_TO_POSTOMAT']);
  });
  it('collection: the company notification and TRANSFERRED_TO_CLIENT webhooks', () => {
    assert.deepEqual(kinds({ to: 'COMPLETED' }), ['COMPANY_NOTIFICATION:COMPLETED', 'WEBHOOK:TRANSFERRED_TO_CLIENT']);
  });
  it('subtraction: the company notification only', () => {
    assert.deepEqual(kinds({ to: 'SUBTRACTED' }), ['COMPANY_NOTIFICATION:SUBTRACTED']);
  });
  it('creation: nothing', () => {
    assert.deepEqual(kinds({ to: 'CREATED' }), []);
  });
  it('no company URL, no notification; no matching webhook, no webhook', () => {
    assert.deepEqual(kinds({ to: 'COMPLETED', companyNotificationUrl: null, webhooks: [] }), []);
  });
  it('webhook rows carry status 0 on placement and 1 on collection, and the api key apart', () => {
    const [placed] = eventsForTransition(facts({ to: 'DELIVERED', sendMessage: false }));
    assert.deepEqual(placed.payload, { postomatOrderId: 'o1', status: 0, payloadTemplate: null });
    assert.equal(placed.secretHeader, 'k');
    const collected = eventsForTransition(facts({ to: 'COMPLETED' })).find((e) => e.kind === 'WEBHOOK')!;
    assert.equal((collected.payload as any).status, 1);
  });
  it('the SMS row holds no code', () => {
    const sms = eventsForTransition(facts({ to: 'DELIVERED' })).find((e) => e.kind === 'SMS')!;
    assert.deepEqual(sms.payload, { orderId: 'o1' });
  });
});

describe('webhook bodies from payloadTemplate', () => {
  it('default template: exactly postomatOrderId (string) and status (number)', () => {
    assert.equal(webhookBody(null, 'abc123', 0), '{"postomatOrderId":"abc123","status":0}');
  });
  it('unusual spacing and field order are kept in order and normalised', () => {
    assert.equal(
      webhookBody('{\n   "status" :   {{status}} ,\t"postomatOrderId":"{{postomatOrderId}}"  }', 'abc123', 1),
      '{"status":1,"postomatOrderId":"abc123"}',
    );
  });
  it('the body never has more than the two fields', () => {
    assert.equal(
      webhookBody('{"postomatOrderId":"{{postomatOrderId}}","status":{{status}},"extra":true}', 'x9', 1),
      '{"postomatOrderId":"x9","status":1}',
    );
  });
  it('a template missing a field still yields both', () => {
    assert.equal(webhookBody('{"status":{{status}}}', 'x9', 0), '{"status":0,"postomatOrderId":"x9"}');
  });
});

describe('SMS text and masking', () => {
  it('holds the pickup code, the cell, the storage end and the map link', () => {
    const text = smsText({
      lockerTitle: 'TSUM',
      cellNumber: 4,
      code: '4821',
      until: '2026-05-04T10:00:00.000Z',
      mapUrl: 'https://x/api/v1/public/postomat/map/BSK101',
    });
    assert.equal(
      text,
      'Your parcel is in locker "TSUM", cell 4 until 2026-05-04 10:00 UTC. Pickup code: 4821. Map: https://x/api/v1/public/postomat/map/BSK101',
    );
  });
  it('masks codes and phone numbers for logs', () => {
    assert.equal(maskCode('4821'), '****', 'no digit of a code in logs');
    assert.equal(maskPhone('+996555123456'), '+9965*****456');
  });
});
