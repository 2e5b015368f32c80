/**
 * What the OpenAPI document says of the Locker API's extensions beyond the spec (issue 22),
 * all under the `Extensions` tag. Merged into LOCKER_OPERATIONS.
 */
import { row } from './errors.ts';
import type { OperationDoc } from './locker-operations.ts';
import { IDEMPOTENCY_HEADER_DOC } from '../locker-api/idempotency-key.ts';

const L = '/api/v1/integration/company';
const S = `${L}/webhook-subscriptions`;
const TAG = 'Extensions';
export const KEY_REUSED = row(
  409,
  'IDEMPOTENCY_KEY_REUSED',
  'this `Idempotency-Key` came with another request in the last 24 hours',
);
const ORDER_NOT_FOUND = row(
  404,
  'ORDER_NOT_FOUND',
  "the order is missing or another company's (a cancelled, expired or redirected order is no longer found)",
);
const SUBSCRIPTION_NOT_FOUND = row(404, 'SUBSCRIPTION_NOT_FOUND', 'no live subscription of the company has this id');
const EVENT_NOT_FOUND = row(
  404,
  'EVENT_NOT_FOUND',
  'no event of the company has this id (or the cursor is not one this service gave)',
);
const post = (doc: Omit<OperationDoc, 'tag'>): OperationDoc => ({
  tag: TAG,
  ...doc,
  headers: [IDEMPOTENCY_HEADER_DOC],
  errors: [...(doc.errors ?? []), KEY_REUSED],
});

export const EXTENSION_OPERATIONS: Record<string, OperationDoc> = {
  [`POST ${L}/order/{id}/cancel`]: post({
    summary: 'Cancel an order before placement',
    description:
      'Withdraws an order whose parcel is not placed yet: its codes stop working at the locker as soon as it hears (the DOWN code then says "Wrong code"), ' +
      "it leaves the order lists, and `order.cancelled` goes to subscriptions. A second cancel answers the cancelled order again. What was paid stays on record (refunds are the operator's decision).",
    errors: [ORDER_NOT_FOUND, row(409, 'ORDER_ALREADY_PLACED', 'the parcel is in the locker already (or further on)')],
  }),
  [`POST ${L}/order/{id}/extend`]: post({
    summary: "Extend a placed order's storage period",
    description:
      "Adds `days` to a DELIVERED order's storage period (at most 365 days in all) and moves `endDateTime`; the new end reaches the locker through the sync (its screen names it when the parcel is taken out). With `sendMessage` the recipient gets the SMS again with the new date; `order.extended` goes to subscriptions.",
    errors: [
      ORDER_NOT_FOUND,
      row(409, 'ORDER_NOT_DELIVERED', 'the order is not in a cell (not placed yet, or collected)'),
      row(409, 'STORAGE_PERIOD_TOO_LONG', 'the storage period would exceed 365 days'),
    ],
    example: { days: 3 },
  }),
  [`POST ${L}/order/{id}/redirect`]: post({
    summary: 'Redirect an order to another locker before placement',
    description:
      'Sends an order whose parcel is not placed yet to the locker `postomatId`: three new codes there (read them with the code endpoints), and the old codes stop working at the old locker as soon as it hears ' +
      '(its DOWN code then says "Wrong code"). The order, its price and storage period stay; `order.redirected` goes to subscriptions, and with `sendMessage` the recipient gets an SMS naming the new locker and pickup code. ' +
      "The order's own locker is no change: the order is answered as it is (no new codes, no event). The target locker counts against the company's pending orders there, like a new order.",
    errors: [
      ORDER_NOT_FOUND,
      row(404, 'POSTOMAT_NOT_FOUND', 'no active locker has the id `postomatId`'),
      row(409, 'ORDER_ALREADY_PLACED', 'the parcel is in the locker already (or further on)'),
      row(
        409,
        'TOO_MANY_PENDING_ORDERS',
        'the company has as many orders waiting for placement at the target locker as it may',
      ),
      row(409, 'PARCEL_TOO_BIG', 'a sized order: the target locker has no cell of its size or larger'),
      row(409, 'NO_FITTING_CELL', 'a sized order: every cell of its size or larger at the target is held'),
    ],
    example: { postomatId: 'tz4a98xxat96iws9zmbrgj3a' },
  }),
  [`GET ${L}/postomat/{id}/availability`]: {
    tag: TAG,
    summary: "A locker's live availability per cell size",
    description:
      'For each size (S, M, L, XL): `cells` (active), `free` (holding no parcel), `promised` (held for pending sized orders: each takes its own size, else the next larger), ' +
      'and `available` (free - promised, never below 0; times OVERBOOKING_RATIO when the operator set one), with the inner dimensions and heaviest parcel of that size at this locker. ' +
      'Read live from the database at each request. A parcel of a size can be booked while that size or a larger one has `available` above 0.',
    errors: [row(404, 'POSTOMAT_NOT_FOUND', 'no active locker has this id')],
  },
  [`GET ${L}/order/{id}/qr.svg`]: {
    tag: TAG,
    summary: "A return's drop-off code as a QR code (SVG)",
    description:
      "For an order created with `kind: RETURN`: its DOWN code (the sender's drop-off code, four digits) as a QR code, an SVG image to show the sender " +
      "(a locker's code scanner reads it like typed digits). Byte mode, error correction level M, a quiet zone of four modules. The code is a secret: the answer is `Cache-Control: no-store`.",
    errors: [
      ORDER_NOT_FOUND,
      row(409, 'ORDER_NOT_A_RETURN', 'the order is a delivery: its codes are not shown as QR codes'),
    ],
    contentType: 'image/svg+xml',
  },
  [`GET ${S}`]: {
    tag: TAG,
    summary: 'List webhook subscriptions',
    description: "The company's live subscriptions, oldest first (secrets are never listed).",
  },
  [`POST ${S}`]: post({
    summary: 'Subscribe to events',
    description:
      'Registers a URL for the given event types. The answer holds the signing `secret`, shown only here. Every delivery is a POST of the event (`id`, `type`, `createdAt`, `data.object`) ' +
      'with `Locker-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`; a non-2xx answer or none is retried with exponential backoff and jitter for up to 24 hours, then dead-lettered (replayable). ' +
      'At most 20 subscriptions per company; the URL must be one the service may reach (WEBHOOK_ALLOW_HOSTS).',
    errors: [row(409, 'TOO_MANY_SUBSCRIPTIONS', 'the company has 20 live subscriptions')],
    example: {
      url: 'https://example.com/locker-events',
      eventTypes: ['order.created', 'order.delivered', 'order.completed'],
    },
  }),
  [`DELETE ${S}/{id}`]: {
    tag: TAG,
    summary: 'Delete a subscription',
    description: 'Stops deliveries to it; deliveries still due are dead-lettered.',
    errors: [SUBSCRIPTION_NOT_FOUND],
  },
  [`POST ${S}/{id}/rotate-secret`]: post({
    summary: "Rotate a subscription's signing secret",
    description:
      'A new secret signs from now on; the previous one signs beside it (a second `v1=`) for `overlapHours` (default 24, 0 ends it at once), so receivers can switch without losing a delivery.',
    errors: [SUBSCRIPTION_NOT_FOUND],
    example: { overlapHours: 24 },
  }),
  [`GET ${S}/events`]: {
    tag: TAG,
    summary: 'List events',
    description:
      "Events of the company's orders recorded while it had subscriptions, newest first, each with its deliveries. `nextCursor` fetches the next page.",
    errors: [EVENT_NOT_FOUND],
  },
  [`GET ${S}/events/{id}/deliveries`]: {
    tag: TAG,
    summary: "An event's delivery attempts",
    description:
      'Every delivery of the event with each attempt: time, HTTP status or error, latency and when the next attempt was planned.',
    errors: [EVENT_NOT_FOUND],
  },
  [`POST ${S}/events/{id}/replay`]: post({
    summary: 'Replay an event',
    description:
      'Sends the event again (same id, same body) to the given subscription, or to every live subscription that takes its type.',
    errors: [EVENT_NOT_FOUND, SUBSCRIPTION_NOT_FOUND],
    example: {},
  }),
};

/**
 * The same subscriptions for platform companies (issue 22), under the Platform API's
 * administrator endpoints; merged into PLATFORM_OPERATIONS. Errors of the user token
 * (401, 403 ONLY_FOR_ADMIN) come with the family.
 */
const PS = '/api/v1/logistic-company/webhook-subscriptions';
const PLATFORM_EVENTS =
  '`parcel.delivered_to_postomat` (placed in a locker, `status` 0) and `parcel.transferred_to_client` (collected, `status` 1)';
export const PLATFORM_EXTENSION_OPERATIONS: Record<string, OperationDoc> = {
  [`GET ${PS}`]: {
    tag: TAG,
    summary: 'List webhook subscriptions (platform)',
    description:
      "The platform company's live subscriptions, oldest first (secrets are never listed). A company administrator's user token.",
  },
  [`POST ${PS}`]: post({
    summary: 'Subscribe to parcel events (platform)',
    description:
      `Registers a URL for ${PLATFORM_EVENTS}: the locker-order events the spec's platform webhooks carry, for the same orders (those of the locker company linked to yours, and those delivering your parcels or your marketplace's). ` +
      'Each event is POSTed as `id`, `type`, `createdAt`, `data.object` (`postomatOrderId`, `status`, `subtype`, `postomatId`, `parcels`: your parcels the order delivers), ' +
      'signed with `Locker-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`; a non-2xx answer or none is retried with exponential backoff and jitter for up to 24 hours, then dead-lettered (replayable). ' +
      "The answer holds the signing `secret`, shown only here. The spec's one-attempt webhooks (`/api/v1/logistic-company/webhook/*`) go on beside subscriptions unchanged. " +
      'Any company type; at most 20 subscriptions per company; the URL must be one the service may reach (WEBHOOK_ALLOW_HOSTS).',
    errors: [row(409, 'TOO_MANY_SUBSCRIPTIONS', 'the company has 20 live subscriptions')],
    example: {
      url: 'http://127.0.0.1:9999/parcel-events',
      eventTypes: ['parcel.delivered_to_postomat', 'parcel.transferred_to_client'],
    },
  }),
  [`DELETE ${PS}/{id}`]: {
    tag: TAG,
    summary: 'Delete a subscription (platform)',
    description: 'Stops deliveries to it; deliveries still due are dead-lettered.',
    errors: [SUBSCRIPTION_NOT_FOUND],
  },
  [`POST ${PS}/{id}/rotate-secret`]: post({
    summary: "Rotate a subscription's signing secret (platform)",
    description:
      'A new secret signs from now on; the previous one signs beside it (a second `v1=`) for `overlapHours` (default 24, 0 ends it at once).',
    errors: [SUBSCRIPTION_NOT_FOUND],
    example: { overlapHours: 24 },
  }),
  [`GET ${PS}/events`]: {
    tag: TAG,
    summary: 'List events (platform)',
    description:
      'Events recorded for the company while it had subscriptions, newest first, each with its deliveries. `nextCursor` fetches the next page.',
    errors: [EVENT_NOT_FOUND],
  },
  [`GET ${PS}/events/{id}/deliveries`]: {
    tag: TAG,
    summary: "An event's delivery attempts (platform)",
    description:
      'Every delivery of the event with each attempt: time, HTTP status or error, latency and when the next attempt was planned.',
    errors: [EVENT_NOT_FOUND],
  },
  [`POST ${PS}/events/{id}/replay`]: post({
    summary: 'Replay an event (platform)',
    description:
      'Sends the event again (same id, same body) to the given subscription, or to every live subscription that takes its type.',
    errors: [EVENT_NOT_FOUND, SUBSCRIPTION_NOT_FOUND],
    example: {},
  }),
};
