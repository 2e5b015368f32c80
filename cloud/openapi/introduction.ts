/** The opening text of the reference and its tag descriptions: the rules that hold across endpoints. */

export const INTRODUCTION = `
Two HTTP/JSON API families of one service, and the notifications it sends.

- **Locker API** (\`/api/v1/integration/company/…\`, plus public locker reads): a company creates an order to deliver one parcel
  into a cell of a locker; the courier places it with the DOWN code, the recipient collects it with the UP code, the SUBTRACT
  code removes it without handing it over. Order states: CREATED → DELIVERED (placed) → COMPLETED (collected) or SUBTRACTED.
- **Platform API** (\`/api/v1/auth\`, \`/api/v1/logistic-company\`, \`/api/v1/integrations\`, \`/api/v1/public/cargo-types\`): sign-in,
  API keys and webhooks of a company administrator; clients, companies, suppliers, parcels and cargo; a marketplace's parcels; locker access through the platform.
- **Outbound events** (the *Webhooks* section): the company notification and the platform webhooks the service POSTs.
- **Locker agents** speak MQTT to the cloud: that contract is the AsyncAPI document at [/asyncapi.json](/asyncapi.json).

## Trying it

\`npm start\` seeds demo data and prints its credentials with \`export\` lines for the shell variables the samples here use
(\`URL KEY LOCKER\` for the Locker API, \`PKEY\` for a logistics company's integrations, \`MKEY\` for the marketplace and locker access).
For the administrator's endpoints set \`EMAIL\` and \`PASSWORD\` to the printed administrator, sign in, and set \`TOKEN\` (and \`REFRESH\`)
from the answer of \`POST /api/v1/auth/login\`. Path parameters written \`<id>\` are yours to fill in.

## Conventions

- Query values arrive as strings and are coerced: \`true\`/\`false\` to booleans, digits to numbers. Repeat a parameter for an array (\`ids=A&ids=B\`).
- Unknown query parameters and body fields are ignored; answers may carry fields beyond those listed.
- Timestamps are ISO 8601; money is a number in major units.
- An order's status *name* is in \`currentStatus.type\`, returned only with \`withCurrentStatus=true\` (orders carry \`currentStatusId\`).

## Errors

Every error is \`{ statusCode, error, message[, code] }\`. Business errors carry their code in \`message\` (e.g. \`ORDER_NOT_FOUND\`);
\`code\` is present only on validation errors (400 \`FST_ERR_VALIDATION\`, the message names the part and field, e.g.
\`body must have required property 'sendMessage'\`), rate limits (429 \`RATE_LIMIT_EXCEEDED\` with \`Retry-After\` in seconds) and other technical errors.

Two rules of the spec surprise integrators, and each operation that has them says so:

- **Locker order create with a \`postomatId\` that names no locker is a 500** (message \`POSTOMAT_NOT_FOUND\`), not a 404.
- **Locker access through the platform (\`/api/v1/integrations/postomat/…\`) answers every locker-side failure with 502**, not-found included
  (e.g. a missing order is 502 \`ORDER_NOT_FOUND\`); the marketplace's locker-order list answers them with 500.

Retry: network errors, timeouts and 5xx on GET with exponential delay (0.4 s, 0.8 s, 1.6 s… capped at 5 s, 3–5 attempts); 429 after \`Retry-After\`;
never 400/401/403/404/406/409. A failed locker \`POST /order/create\` may have created the order: list orders and look for your \`customData\` before retrying.
A failed marketplace \`POST /parcel/create\` may be retried with the same \`Idempotency-Key\`.
`.trim();

export const TAGS = [
  {
    name: 'Locker orders',
    description: 'Orders of the Locker API and their codes. Authentication: `Authorization: Bearer <API_KEY>`.',
  },
  { name: 'Lockers', description: 'Lockers and their free cells.' },
  { name: 'Directories', description: 'Countries, cities and districts (active records only in lists).' },
  { name: 'Public', description: 'No authentication; limited per client address.' },
  { name: 'Platform: sign-in', description: 'User tokens for the administrator endpoints.' },
  { name: 'Platform: API keys', description: "A company administrator's API keys (user token)." },
  {
    name: 'Platform: webhooks',
    description:
      "A logistics company administrator's webhooks (user token). Their deliveries are in the Webhooks section.",
  },
  { name: 'Platform: clients', description: 'Recipients registered with a company (company API key).' },
  { name: 'Platform: companies', description: 'Logistics and courier companies (company API key).' },
  {
    name: 'Platform: parcels and cargo',
    description: "Suppliers, parcels and cargo of the caller's clients (company API key).",
  },
  {
    name: 'Platform: lockers',
    description:
      'The Locker API through the platform, for companies the operator gave locker access. Every locker-side failure is a 502.',
  },
  {
    name: 'Platform: marketplace',
    description: "A marketplace's pickup points, locker orders and parcels (marketplace API key).",
  },
  {
    name: 'Sandbox',
    description:
      'Only with `SANDBOX=true npm start`: act at the simulated lockers (place, collect, subtract, expire, cut the network) through the real path. A Locker API key, or a marketplace platform key for its parcels.',
  },
  {
    name: 'Locker agents',
    description:
      "What a locker board's agent calls over HTTP (its orders and events go over MQTT: see the AsyncAPI document).",
  },
  {
    name: 'Extensions',
    description:
      "Beyond the spec, additive (docs/integrators.md): changes after creation, webhook subscriptions with signatures, retries and replay. A request that uses none of them gets the spec's answer.",
  },
  { name: 'Outbound events', description: 'What the service POSTs to your URLs.' },
  { name: 'Service', description: 'Health and this documentation.' },
];
