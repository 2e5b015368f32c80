/** What the OpenAPI document says of each Platform API route beyond its schemas (see locker-operations.ts). */
import { row } from './errors.ts';
import type { OperationDoc } from './locker-operations.ts';
import { PLATFORM_EXTENSION_OPERATIONS } from './extension-operations.ts';

const I = '/api/v1/integrations';
const M = `${I}/market-company`;
const P = `${I}/postomat`;

const LOCKER_SIDE = row(
  502,
  undefined,
  'any failure on the locker side, not-found included (message ORDER_NOT_FOUND, POSTOMAT_NOT_FOUND, INSUFFICIENT_FUNDS or a text), or locker access not enabled for the company',
);
const viaLocker = (summary: string, description = ''): OperationDoc => ({
  tag: 'Platform: lockers',
  summary,
  description:
    `${description} The Locker API's operation and shapes, on behalf of the locker company linked to yours once the operator enables access. ` +
    "**Every locker-side failure, including not-found, is a 502** (the spec's rule for this group).",
  errors: [LOCKER_SIDE],
});
const NOT_MARKETPLACE = row(403, 'FORBIDDEN', 'the API key is not of a marketplace company');
const market = (
  summary: string,
  description?: string,
  errors = [] as OperationDoc['errors'] & object,
): OperationDoc => ({
  tag: 'Platform: marketplace',
  summary,
  description,
  errors: [NOT_MARKETPLACE, ...errors],
});
const PARCEL_NOT_FOUND = row(404, 'PARCEL_NOT_FOUND', "no parcel with this track code, or another company's");
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  required: true,
  maxLength: 200,
  description:
    'required; a repeat with the same key within one hour returns the first answer (header `Idempotent-Replayed: true`) and creates nothing',
};
const redirectExample = (doc: OperationDoc): OperationDoc => ({ ...doc, example: { toWarehouseId: 1 } });
const WEBHOOK_NOT_LOGIST = row(403, 'FORBIDDEN', 'webhook management needs a logistics (LOGIST) company');

/** The spec's list rules, shown on both lists (parcel/list, cargo/list) and the supplier's parcels. */
const SEARCH_RULES = `**search**: \`<code_name>-<client_code>\` (code name case-insensitive) selects that client's items; with \`codes\` not containing that code,
or \`code\` different from it, the answer is empty. Any other string matches, case-insensitively, a part of the track code, description,
code name, client name or phone (cargo: also the logistics company title and tractor number, not the track code); an integer also
selects the client with that code. **codes** replaces **code** when both are given.

**statuses** selects by current status; on parcels RECEIVED means received at a warehouse that is not a pickup point, and ARRIVED
includes RECEIVED at a pickup point. **isPayed**: true, items with a paid order; false, with an unpaid one; items without an order match neither.`;

const LIST_RULES = `Items of your clients, newest first; \`page\` defaults to 1, \`pageSize\` to 10 (no maximum: a large page is streamed).

${SEARCH_RULES}

Special sets (statuses in any order; with any other combination \`arrivedAtFinal\` and \`strictArrived\` have no effect):

| list | statuses | arrivedAtFinal | strictArrived | selects |
|---|---|---|---|---|
| parcel | ARRIVED, RECEIVED | true | absent | parcels that reached the final point (pickup point, own delivery warehouse, locker, recipient's door) |
| parcel | ARRIVED, READYTOSHIP, RECALL, RECEIVED, REDIRECT_TO_PVZ, SENT | false | absent | these statuses except those at the final point |
| parcel | ARRIVED | true | true | ARRIVED at the final point with a payment order created |
| parcel | ARRIVED, READYTOSHIP, RECALL, RECEIVED, REDIRECT_TO_PVZ, SENT | false | true | these statuses except those of the previous row |
| cargo | RECEIVED | true | n/a | cargo received at its own delivery warehouse or a pickup point |
| cargo | READYTOSHIP, RECEIVED, SENT | false | n/a | these statuses except the previous row |`;

export const PLATFORM_OPERATIONS: Record<string, OperationDoc> = {
  ...PLATFORM_EXTENSION_OPERATIONS,
  'POST /api/v1/auth/login': {
    tag: 'Platform: sign-in',
    summary: 'Sign in',
    description:
      'Returns an access token (1 hour) and a refresh token (10 days). Failures are limited per address and per account.',
    errors: [row(404, 'USER_NOT_FOUND', 'no user with this email'), row(406, 'PASSWORD_NOT_CORRECT', 'wrong password')],
    example: { email: '$EMAIL', password: '$PASSWORD' },
  },
  'POST /api/v1/auth/refresh': {
    tag: 'Platform: sign-in',
    summary: 'Refresh the token pair',
    description: 'Both of its errors are 400 (the spec).',
    errors: [
      row(400, 'UNAUTHORIZED', 'the refresh token is invalid, expired or already used'),
      row(400, 'USER_NOT_FOUND', 'the user is gone'),
    ],
    example: { refreshToken: '$REFRESH' },
  },
  'POST /api/v1/logistic-company/api-key/create': {
    tag: 'Platform: API keys',
    summary: 'Create an API key',
    description: 'Rotation: create the new key, switch your system, delete the old key. Keys do not expire.',
    example: { title: 'warehouse scanner' },
  },
  'GET /api/v1/logistic-company/api-key/list': {
    tag: 'Platform: API keys',
    summary: 'List API keys',
    description: 'Includes the `key` values. `pageSize` defaults to 1.',
  },
  'DELETE /api/v1/logistic-company/api-key/{id}': {
    tag: 'Platform: API keys',
    summary: 'Delete an API key',
    description: "The key is refused from the next request on. The answer's message is `api key deleted`.",
    errors: [row(404, 'NOT_FOUND', 'no such key'), row(406, 'NOT_ACCEPTABLE', "another company's key")],
  },
  'POST /api/v1/logistic-company/webhook/create': {
    tag: 'Platform: webhooks',
    summary: 'Create a webhook',
    description:
      'One webhook per company per `type` + `subtype`. `payloadTemplate` is JSON text with `{{postomatOrderId}}` (inside a string) and `{{status}}` (a number); ' +
      'the delivered body always has just those two fields (see the webhooks section). A URL naming a private, loopback or link-local address is refused (400).',
    errors: [
      WEBHOOK_NOT_LOGIST,
      row(406, 'WEBHOOK_TYPE_EXIST', 'the company already has a webhook of this type and subtype'),
      row(
        406,
        'WEBHOOK_PAYLOAD_INVALID',
        'the template is not valid JSON after substitution, or has other placeholders',
      ),
    ],
    example: {
      type: 'PARCEL',
      subtype: 'DELIVERED_TO_POSTOMAT',
      url: 'http://127.0.0.1:9999/placed',
      apiKey: 'my-secret',
      payloadTemplate: '{"postomatOrderId":"{{postomatOrderId}}","status":{{status}}}',
    },
  },
  'GET /api/v1/logistic-company/webhook/list': {
    tag: 'Platform: webhooks',
    summary: 'List webhooks',
    description: '`pageSize` defaults to 1.',
    errors: [WEBHOOK_NOT_LOGIST],
  },
  'PATCH /api/v1/logistic-company/webhook/{id}': {
    tag: 'Platform: webhooks',
    summary: 'Change a webhook',
    description: 'Omitted fields keep their values.',
    errors: [
      WEBHOOK_NOT_LOGIST,
      row(404, 'NOT_FOUND', 'no such webhook'),
      row(406, 'NOT_ACCEPTABLE', "another company's webhook"),
      row(406, 'WEBHOOK_TYPE_EXIST', 'another webhook has this type and subtype'),
      row(406, 'WEBHOOK_PAYLOAD_INVALID', 'invalid template'),
    ],
    example: { url: 'http://127.0.0.1:9999/placed-v2' },
  },
  'DELETE /api/v1/logistic-company/webhook/{id}': {
    tag: 'Platform: webhooks',
    summary: 'Delete a webhook',
    description: "The answer's message is `api key deleted`, word for word as the spec has it.",
    errors: [
      WEBHOOK_NOT_LOGIST,
      row(404, 'NOT_FOUND', 'no such webhook'),
      row(406, 'NOT_ACCEPTABLE', "another company's webhook"),
    ],
  },
  [`GET ${P}/list`]: viaLocker('List lockers', '`page` and `pageSize` (1-500) are required.'),
  [`GET ${P}/city`]: viaLocker('List cities', '`page` and `pageSize` (1-500) are required.'),
  [`GET ${P}/city/{id}`]: viaLocker('One city', 'A missing city is a 502.'),
  [`POST ${P}/order/create`]: {
    ...viaLocker(
      'Create a locker order',
      'Answers 201. The recipient is told of the placement by SMS. `Idempotency-Key` is forwarded without de-duplication.',
    ),
    status: 201,
    example: { toUserPhone: '+996555010203', postomatId: '$LOCKER', weight: 1.2, days: 3 },
  },
  [`GET ${P}/order/list`]: viaLocker(
    'List locker orders',
    '`page` and `pageSize` (1-500) are required; flags as in the Locker API.',
  ),
  [`GET ${P}/order/{id}`]: viaLocker('One locker order', 'A missing order is a 502 with message ORDER_NOT_FOUND.'),
  [`GET ${P}/order/{id}/down-code`]: viaLocker('DOWN code of a locker order'),
  [`GET ${P}/order/{id}/up-code`]: viaLocker('UP code of a locker order'),
  [`GET ${P}/order/{id}/subtract-code`]: viaLocker('SUBTRACT code of a locker order'),
  [`GET ${P}/{id}`]: viaLocker('One locker', 'A missing locker is a 502.'),
  [`GET ${M}/opp/list`]: market(
    'List pickup points',
    '`page` and `pageSize` (1-500) are required; with coordinates, sorted by distance and points without coordinates left out.',
  ),
  [`GET ${M}/opp/city`]: market('List cities', 'All active cities.'),
  [`GET ${M}/opp/city/{id}`]: market('One city', 'The city, or `null`.'),
  [`GET ${M}/opp/{id}`]: market('One pickup point', undefined, [
    row(404, 'WAREHOUSE_NOT_FOUND', 'no such pickup point'),
  ]),
  [`GET ${M}/order/list`]: market(
    'List locker orders',
    'In the Locker API format. **A locker-side failure is a 500** here (the spec).',
    [row(500, undefined, 'any failure on the locker side, or locker access not enabled')],
  ),
  [`GET ${M}/order/{id}`]: market(
    'A parcel by its locker order id',
    'The parcel where your company is the partner, with `postomatOrder`. For parcels you created, read by track code.',
    [row(404, 'ORDER_NOT_FOUND', 'no parcel of yours has this locker order')],
  ),
  [`POST ${M}/parcel/create`]: {
    ...market(
      'Create a parcel',
      'To a locker (POSTOMAT, `postomatId`) or a pickup point (PICKUP, `warehouseId`). Receiver and sender are registered as client and supplier by phone. ' +
        'With `createPostomatOrder: true` the answer is `{ parcel, postomatOrder, downCode }` (the locker order is paid from the balance, no SMS). Retry a failure only with the same `Idempotency-Key`.',
      [
        row(400, 'IDEMPOTENCY_KEY_REQUIRED', 'the `Idempotency-Key` header is missing'),
        row(404, 'POSTOMAT_NOT_FOUND', 'no such locker'),
        row(404, 'WAREHOUSE_NOT_FOUND', 'no such pickup point'),
        row(404, 'CODE_NOT_FOUND', 'no client code could be assigned'),
        row(409, 'TRACK_CODE_ALREADY_EXISTS', 'the track code is taken'),
        row(422, 'IDEMPOTENCY_KEY_REUSED', 'the key was used with another request body'),
        row(502, 'Postomat provider error', 'the locker order could not be created'),
      ],
    ),
    headers: [IDEMPOTENCY_KEY],
    example: {
      deliveryMethod: 'POSTOMAT',
      postomatId: '$LOCKER',
      createPostomatOrder: true,
      weight: 0.8,
      price: 1500,
      currency: 'KGS',
      receiver: { name: 'Aizada', phone: '+996555010203', address: 'Chui 12', country: 1, city: 1 },
      sender: { name: 'Yiwu Shoes', phone: '+8613800000099', address: 'Futian Market', country: 2, city: 3 },
    },
  },
  [`GET ${M}/parcel/track-code/{trackCode}`]: market('A parcel by track code', 'The same shape as creation.', [
    PARCEL_NOT_FOUND,
  ]),
  [`GET ${M}/parcel/track-code/{trackCode}/status`]: market(
    'Marketplace status of a parcel',
    'CREATED, ARRIVED, TRANSFERRED_TO_CLIENT or REDIRECTED.',
    [PARCEL_NOT_FOUND],
  ),
  [`PUT ${M}/parcel/track-code/{trackCode}/redirect`]: redirectExample(
    market(
      'Redirect a parcel',
      'Exactly one of `toWarehouseId` or `toPostomatId`. Refused while the parcel is READYTOSHIP, COURIER_RECEIVED, SENT, TRANSFERRED or COMPLETED.',
      [
        PARCEL_NOT_FOUND,
        row(404, 'COMPANY_NOT_FOUND', 'the target pickup point is missing'),
        row(404, 'POSTOMAT_NOT_FOUND', 'the target locker is missing'),
        row(406, 'NOT_ACCEPTABLE', "the parcel's status forbids a redirect"),
        row(502, 'Postomat provider error', 'the locker side refused'),
      ],
    ),
  ),
  [`GET ${I}/client/search-by-code`]: {
    tag: 'Platform: clients',
    summary: 'Search clients by code',
    description:
      '`<name>-<number>`, `-<number>` or digits select by client code; Latin letters alone select the clients of that code name; anything else gives `[]`. At most 20. ' +
      '`cargoTypes` only trims `company.codes` of the answer.',
  },
  [`GET ${I}/client/{id}`]: { tag: 'Platform: clients', summary: 'One client', description: 'The client, or `null`.' },
  [`GET ${I}/courier-company/{id}`]: {
    tag: 'Platform: companies',
    summary: 'One courier company',
    description: 'An active courier company, or `null`.',
  },
  [`GET ${I}/logistic-company/list`]: {
    tag: 'Platform: companies',
    summary: 'List logistics companies',
    description: 'Active LOGIST companies, no pagination; the boolean filters select by feature.',
  },
  [`GET ${I}/logistic-company/countries`]: { tag: 'Platform: companies', summary: 'Countries with their cities' },
  [`GET ${I}/logistic-company/{id}`]: {
    tag: 'Platform: companies',
    summary: 'One logistics company',
    description: 'An active company, or `null`.',
  },
  [`GET ${I}/logistic-company/supplier/by-phone`]: {
    tag: 'Platform: parcels and cargo',
    summary: 'A supplier by phone',
    description: 'Exact match; encode `+` as `%2B`. The supplier, or `null`.',
  },
  [`GET ${I}/logistic-company/supplier/{id}/parcels`]: {
    tag: 'Platform: parcels and cargo',
    summary: "A supplier's parcels",
    description: `Every parcel of the supplier, whatever its client; without both \`page\` and \`pageSize\` all of them.\n\n${SEARCH_RULES}`,
    errors: [row(404, 'Supplier not found', "no such supplier, or another company's")],
  },
  [`GET ${I}/logistic-company/parcel/list`]: {
    tag: 'Platform: parcels and cargo',
    summary: 'List parcels',
    description: LIST_RULES,
  },
  [`GET ${I}/logistic-company/cargo/list`]: {
    tag: 'Platform: parcels and cargo',
    summary: 'List cargo',
    description: `${LIST_RULES}\n\n**cargoTypes** selects cargo whose type is of those kinds.`,
  },
  'GET /api/v1/public/cargo-types': {
    tag: 'Public',
    summary: 'Cargo types',
    description: 'Active cargo types with their delivery types; no authentication.',
  },
};
