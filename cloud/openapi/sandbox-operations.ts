/**
 * What the OpenAPI document says of the sandbox routes (docs/sandbox.md) and of the agents'
 * enrolment endpoint (docs/field-technicians.md), beyond their schemas. Keyed `METHOD path`.
 */
import { ENROLMENT_REFUSALS } from '../../shared/enrolment.ts';
import { row, type ErrorRow } from './errors.ts';
import { LOCKER_ACCESS_OFF } from '../platform-api/locker-side.ts';
import type { OperationDoc } from './locker-operations.ts';

const S = '/api/v1/sandbox';
const ONLY =
  '**Only when the cloud runs with `SANDBOX=true`** (`SANDBOX=true npm start`); otherwise this path is a 404 like any unknown path. ' +
  "Authenticate with the key the order was made with: a Locker API key (`Authorization: Bearer`), or a marketplace's platform key (`x-api-token`) for its parcels' locker orders.";
const ACCESS_OFF = row(
  403,
  LOCKER_ACCESS_OFF,
  'a platform key whose company has no locker access',
  'LOCKER_ACCESS_OFF',
);
const ORDER_NOT_FOUND = row(404, 'ORDER_NOT_FOUND', "the order is missing or another company's");
const NOT_SIMULATED = row(
  409,
  undefined,
  '`LOCKER_NOT_SIMULATED`: the locker is not one of the simulated lockers',
  'LOCKER_NOT_SIMULATED',
);
const NO_FLEET = row(
  503,
  undefined,
  '`SANDBOX_NO_FLEET`: the cloud runs without a simulated fleet (`SANDBOX=true npm run cloud`)',
  'SANDBOX_NO_FLEET',
);
const STATE = row(409, undefined, '`ORDER_STATE`: the order is not in the status the action needs', 'ORDER_STATE');
const REFUSED = row(
  409,
  undefined,
  '`LOCKER_REFUSED`: the locker opened no door; the body adds `display`, what the locker showed',
  'LOCKER_REFUSED',
);

const action = (summary: string, what: string, extra: ErrorRow[] = []): OperationDoc => ({
  tag: 'Sandbox',
  summary,
  description:
    `${ONLY} ${what} The answer comes once the cloud has the new status (200), or, when the locker is offline, with 202 and \`reachedCloud: false\`: ` +
    'the agent keeps the event and reports it when the locker is back online. An order created a moment ago is fine: the sandbox waits up to 5 s for its codes to reach the locker.',
  errors: [ORDER_NOT_FOUND, STATE, REFUSED, NOT_SIMULATED, ACCESS_OFF, NO_FLEET, ...extra],
});

export const SANDBOX_OPERATIONS: Record<string, OperationDoc> = {
  [`POST ${S}/orders/{id}/place`]: action(
    'A courier places the parcel',
    "Types the DOWN code on the simulated keypad, puts the parcel into the cell that opens and shuts the door: the order becomes DELIVERED, and its SMS and webhooks follow as in production. For a return (`kind: RETURN`) this is the sender's drop-off.",
  ),
  [`POST ${S}/orders/{id}/collect`]: action(
    'The recipient collects the parcel',
    "Types the UP code, takes the parcel, shuts the door: COMPLETED, and the company is notified. While the order is unpaid the locker refuses (409 `LOCKER_REFUSED` with its display) and the order stays DELIVERED. For a return this is the courier's collection.",
  ),
  [`POST ${S}/orders/{id}/subtract`]: action(
    'Staff take the parcel back',
    'Types the SUBTRACT code, takes the parcel out, shuts the door: SUBTRACTED.',
  ),
  [`POST ${S}/orders/{id}/expire`]: {
    tag: 'Sandbox',
    summary: "Move an order's time past its end",
    description: `${ONLY} A DELIVERED order's storage period is shifted to have ended a minute ago (it counts in \`expiredAggregate\` at once); a CREATED order is archived as an order never placed (\`isActive: false\`, \`expiredAt\`), its codes withdrawn from the locker; a sized CREATED order's reservation lapses instead (status EXPIRED, \`order.expired\` to subscriptions). Nothing else moves.`,
    errors: [ORDER_NOT_FOUND, STATE, ACCESS_OFF],
  },
  [`POST ${S}/lockers/{id}/offline`]: {
    tag: 'Sandbox',
    summary: "Cut a simulated locker's network",
    description: `${ONLY} The locker works on from its stored orders; its events wait in its outbox.`,
    errors: [
      row(404, 'POSTOMAT_NOT_FOUND', 'no locker has this id'),
      NOT_SIMULATED,
      row(409, undefined, '`LOCKER_NOT_LINKED`: the simulated locker has no cloud link', 'LOCKER_NOT_LINKED'),
      NO_FLEET,
    ],
  },
  [`POST ${S}/lockers/{id}/online`]: {
    tag: 'Sandbox',
    summary: "Restore a simulated locker's network",
    description: `${ONLY} The agent reconnects, announces its version, catches up on orders and reports what happened meanwhile.`,
    errors: [
      row(404, 'POSTOMAT_NOT_FOUND', 'no locker has this id'),
      NOT_SIMULATED,
      row(409, undefined, '`LOCKER_NOT_LINKED`: the simulated locker has no cloud link', 'LOCKER_NOT_LINKED'),
      NO_FLEET,
    ],
  },
};

export const AGENT_OPERATIONS: Record<string, OperationDoc> = {
  'POST /api/v1/agent/enrol': {
    tag: 'Locker agents',
    summary: 'Enrol a locker board',
    description:
      'For `npm run agent -- enroll` on a new locker: trades the one-time code the operator issued (`npm run operator -- locker enrol-code`, 8 characters, shown as `XXXX-XXXX`, ' +
      'valid 60 minutes, single use) for the locker id, the broker URL, fresh agent credentials (the previous ones stop working) and the cell map. No authentication: limited per client address, ' +
      'and failed codes count like failed sign-ins.',
    errors: [
      row(404, ENROLMENT_REFUSALS.ENROLMENT_CODE_UNKNOWN, 'no such code', 'ENROLMENT_CODE_UNKNOWN'),
      row(409, ENROLMENT_REFUSALS.ENROLMENT_CODE_USED, 'the code was used already', 'ENROLMENT_CODE_USED'),
      row(409, ENROLMENT_REFUSALS.LOCKER_HAS_NO_CELLS, 'the locker has no cells yet', 'LOCKER_HAS_NO_CELLS'),
      row(410, ENROLMENT_REFUSALS.ENROLMENT_CODE_EXPIRED, 'the code has expired', 'ENROLMENT_CODE_EXPIRED'),
    ],
  },
};
