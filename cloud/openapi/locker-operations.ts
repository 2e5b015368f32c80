/**
 * What the OpenAPI document says of each Locker API route beyond its schemas: a summary, the
 * spec's rules in prose, and its error rows. Keyed `METHOD path` as the route table names routes;
 * a route without an entry here fails the contract tests.
 */
import { row, type ErrorRow } from './errors.ts';
import { EXTENSION_OPERATIONS, KEY_REUSED } from './extension-operations.ts';
import { IDEMPOTENCY_HEADER_DOC } from '../locker-api/idempotency-key.ts';

export interface OperationDoc {
  tag: string;
  summary: string;
  description?: string;
  errors?: ErrorRow[];
  /** a success status other than 200 */
  status?: number;
  /**
   * A request body for the docs page and the curl sample; `$NAME` stands for a shell variable
   * `npm start` prints (the contract tests parse it with the route's body schema).
   */
  example?: unknown;
  /** extra request headers */
  headers?: Array<{ name: string; required: boolean; description: string; maxLength?: number }>;
  /** a success answer that is not JSON (its media type) */
  contentType?: string;
}

const L = '/api/v1/integration/company';
const ORDER_NOT_FOUND = row(404, 'ORDER_NOT_FOUND', "the order is missing or another company's");
const FLAGS =
  'Flags `withToUser`, `withCell`, `withPostomat`, `withCurrentStatus`, `withStatuses`, `withRent` add nested objects. ' +
  "An order's status name is in `currentStatus.type`, present only with `withCurrentStatus=true` (the order itself carries `currentStatusId`). " +
  '`passwords` always holds only the DOWN code: `withPasswords` has no effect.';

const code = (type: string, use: string): OperationDoc => ({
  tag: 'Locker orders',
  summary: `${type} code of an order`,
  description: `The ${type} code object (four digits in \`password\`). ${use}`,
  errors: [ORDER_NOT_FOUND],
});

export const LOCKER_OPERATIONS: Record<string, OperationDoc> = {
  [`POST ${L}/order/create`]: {
    tag: 'Locker orders',
    summary: 'Create an order',
    description:
      'Creates an order for one parcel to one locker, with its three codes (DOWN, UP, SUBTRACT); the status is CREATED and no cell is taken yet. ' +
      'The courier places the parcel with the DOWN code; the storage period counts from placement. With `sendMessage: true` the recipient gets an SMS with the pickup code after placement. ' +
      "**A `postomatId` that names no locker is a 500 server error** (the spec's rule, message POSTOMAT_NOT_FOUND), not a 404. " +
      'Without an `Idempotency-Key`, retrying a failed create may duplicate the order (the spec): list orders and look for your reference in `customData` first. ' +
      '**Extension:** with an `Idempotency-Key`, a repeat with the same body within 24 hours gets the first answer and creates nothing. ' +
      '**Extension (size-aware booking):** with `cellSize` (S, M, L, XL) or `dimensions` (mm, with `weight` in kg) the smallest cell size the parcel fits is held for it until `reserveUntil` ' +
      '(default 72 hours, at most 14 days); the answer then carries `cellSize` and `reserveUntil`, and the DOWN code opens a free cell of that size or the next larger, never a smaller one. ' +
      "Unplaced by `reserveUntil`, the order becomes EXPIRED. Without these fields the order is the spec's. See `GET /postomat/{id}/availability`.",
    headers: [IDEMPOTENCY_HEADER_DOC],
    errors: [
      row(500, 'POSTOMAT_NOT_FOUND', 'no locker has this `postomatId` (the spec makes it a server error)'),
      row(403, 'INSUFFICIENT_FUNDS', '`pay: true` and the company balance does not cover the price'),
      row(409, 'TOO_MANY_PENDING_ORDERS', 'the company has too many orders waiting for placement at this locker'),
      row(
        409,
        'PARCEL_TOO_BIG',
        'extension: no cell of the locker is of a size the parcel fits (its size, dimensions or weight)',
      ),
      row(
        409,
        'NO_FITTING_CELL',
        'extension: the locker has cells the parcel fits, but none left free and not held for other sized orders',
      ),
      row(503, 'CODES_EXHAUSTED', 'no free four-digit code is left at this locker'),
      KEY_REUSED,
    ],
  },
  [`GET ${L}/order/list`]: {
    tag: 'Locker orders',
    summary: 'List active orders',
    description: `Active orders of the company, newest first; \`total\` counts every match, \`aggregate\` and \`expiredAggregate\` sum over the whole selection. ${FLAGS}`,
  },
  [`GET ${L}/order/{id}`]: {
    tag: 'Locker orders',
    summary: 'One order',
    description: FLAGS,
    errors: [ORDER_NOT_FOUND],
  },
  [`GET ${L}/order/{id}/down-code`]: code('DOWN', 'The courier enters it at the locker to place the parcel.'),
  [`GET ${L}/order/{id}/up-code`]: code(
    'UP',
    "The recipient enters it to collect the parcel; it is the recipient's secret.",
  ),
  [`GET ${L}/order/{id}/subtract-code`]: code(
    'SUBTRACT',
    'Entered at the locker, it removes the parcel without handing it to the recipient (status SUBTRACTED).',
  ),
  [`GET ${L}/postomat/list`]: {
    tag: 'Lockers',
    summary: 'List lockers',
    description:
      'Active lockers, by title; with both `latitude` and `longitude` by distance, each with `distance` in km. Pagination is on only when both `page` and `pageSize` are given. ' +
      '`withFreeCells` adds `cells` (cells without a current placement), and is ignored when coordinates are given.',
  },
  [`GET ${L}/postomat/{id}`]: {
    tag: 'Lockers',
    summary: 'One locker',
    description: 'The locker (inactive ones too), or `null` when there is none (not a 404).',
  },
  [`GET ${L}/cell/{postomatId}/free-cells`]: {
    tag: 'Lockers',
    summary: 'Free cells of a locker',
    description: 'Cells that are active and hold no parcel of a current order. An unknown locker gives an empty array.',
  },
  [`GET ${L}/country`]: {
    tag: 'Directories',
    summary: 'Countries',
    description: 'Active countries; `withCities` adds their active cities. No pagination.',
  },
  [`GET ${L}/city`]: {
    tag: 'Directories',
    summary: 'Cities',
    description: 'Active cities by title; pagination only when both `page` and `pageSize` are given.',
  },
  [`GET ${L}/city/{id}`]: {
    tag: 'Directories',
    summary: 'One city',
    description: 'The city, or `null` when there is none.',
  },
  [`GET ${L}/district/list`]: {
    tag: 'Directories',
    summary: 'Districts',
    description: 'Active districts, optionally of one city; pagination only when both `page` and `pageSize` are given.',
  },
  'GET /api/v1/open-api/postomat/list': {
    tag: 'Public',
    summary: 'List lockers (public)',
    description: 'The locker list without authentication; limited per client address.',
  },
  'GET /api/v1/public/postomat/{shortId}': {
    tag: 'Public',
    summary: 'A locker by its short id',
    errors: [row(404, 'POSTOMAT_NOT_FOUND', 'no locker has this short id')],
  },
  'GET /api/v1/public/postomat/map/{shortId}': {
    tag: 'Public',
    summary: "Redirect to a map at a locker's coordinates",
    status: 302,
    errors: [row(404, 'POSTOMAT_NOT_FOUND', 'no locker has this short id, or it has no coordinates')],
  },
  ...EXTENSION_OPERATIONS,
};
