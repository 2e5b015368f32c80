/**
 * The OpenAPI 3.1 document, built from the app's own route table (every route with the zod
 * schemas it validates with and answers in) and the prose of locker-operations.ts and
 * platform-operations.ts. Nothing in it is written twice: shapes come from zod, paths and
 * methods from the routes.
 */
import { z } from 'zod';
import type { RouteEntry } from '../http/route-table.ts';
import { fieldsOf, SchemaTable, type JsonSchema } from './json-schema.ts';
import {
  AUTH_ROWS,
  BAD_JSON,
  BODY_TOO_LARGE,
  ErrorBody,
  errorBodyOf,
  RATE_LIMITED,
  VALIDATION,
  type ErrorRow,
} from './errors.ts';
import { LOCKER_OPERATIONS, type OperationDoc } from './locker-operations.ts';
import { PLATFORM_OPERATIONS } from './platform-operations.ts';
import { AGENT_OPERATIONS, SANDBOX_OPERATIONS } from './sandbox-operations.ts';
import { OUTBOUND_EVENTS } from './outbound-events.ts';
import { familyOf, FAMILIES, SECURITY_SCHEMES } from './families.ts';
import { curlSample } from './samples.ts';
import { ReadinessAnswer } from '../http/readiness.ts';
import { INTRODUCTION, TAGS } from './introduction.ts';

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const ASYNCAPI_PATH = '/asyncapi.json';
export const DOCS_PATH = '/docs';
export const REDOC_SCRIPT_PATH = '/docs/redoc.standalone.js';

const Health = z.object({ status: z.literal('ok') });

/** What a service route adds: routes outside route() carry no response schema, and the docs page is not JSON. */
type ServiceDoc = OperationDoc & { response?: z.ZodType; contentType?: string };

/** The service's own routes: health and this documentation. */
const SERVICE_OPERATIONS: Record<string, ServiceDoc> = {
  'GET /health': {
    tag: 'Service',
    summary: 'Health',
    description: 'Answers `{ "status": "ok" }` while the process serves HTTP (liveness).',
    response: Health,
  },
  'GET /ready': {
    tag: 'Service',
    summary: 'Readiness',
    description:
      'For a load balancer: 200 `ready` when the database answers (within 2 s), every migration this release knows is applied and the MQTT link is up; otherwise **503** with the same body naming the failing part. See docs/operations.md.',
    response: ReadinessAnswer,
  },
  'GET /metrics': {
    tag: 'Service',
    summary: 'Metrics (Prometheus text format)',
    description:
      'Only on the API port when `METRICS_TOKEN` is set, to `Authorization: Bearer <METRICS_TOKEN>`; by default metrics are served apart, on 127.0.0.1:9464 (`METRICS_HOST`, `METRICS_PORT`).',
    contentType: 'text/plain',
  },
  [`GET ${OPENAPI_PATH}`]: { tag: 'Service', summary: 'This OpenAPI 3.1 document' },
  [`GET ${ASYNCAPI_PATH}`]: {
    tag: 'Service',
    summary: 'The AsyncAPI 3 document of the MQTT contract between the cloud and locker agents',
  },
  [`GET ${DOCS_PATH}`]: { tag: 'Service', summary: 'This reference, rendered (Redoc)', contentType: 'text/html' },
  [`GET ${REDOC_SCRIPT_PATH}`]: {
    tag: 'Service',
    summary: "The docs page's renderer script",
    contentType: 'text/javascript',
  },
};

export const operationDocOf = (key: string): ServiceDoc | undefined =>
  LOCKER_OPERATIONS[key] ??
  PLATFORM_OPERATIONS[key] ??
  SANDBOX_OPERATIONS[key] ??
  AGENT_OPERATIONS[key] ??
  SERVICE_OPERATIONS[key];

/** `/order/:id` → `/order/{id}` */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

export function openApiDocument(routes: RouteEntry[]): JsonSchema {
  const table = new SchemaTable('#/components/schemas/');
  const errorRef = '#/components/schemas/ErrorBody';
  table.convert(ErrorBody, 'output');
  const paths: Record<string, Record<string, unknown>> = {};
  for (const entry of routes) {
    if (entry.method === 'HEAD') continue;
    const path = openApiPath(entry.path);
    const key = `${entry.method} ${path}`;
    const doc = operationDocOf(key);
    (paths[path] ??= {})[entry.method.toLowerCase()] = operation(entry, path, doc, table, errorRef);
  }
  const webhooks = Object.fromEntries(
    Object.entries(OUTBOUND_EVENTS).map(([name, e]) => [
      name,
      {
        post: {
          operationId: name,
          tags: ['Outbound events'],
          summary: e.summary,
          description: e.description,
          // The spec: no signature, no secret (a platform webhook may carry the x-api-key header below).
          security: [],
          parameters: [
            ...(e.apiKeyHeader
              ? [
                  {
                    name: 'x-api-key',
                    in: 'header',
                    required: false,
                    description: "the webhook's `apiKey`, when set",
                    schema: { type: 'string' },
                  },
                ]
              : []),
            ...('signatureHeader' in e
              ? [
                  {
                    name: 'Locker-Signature',
                    in: 'header',
                    required: true,
                    description: '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">[,v1=…]`',
                    schema: { type: 'string' },
                  },
                  {
                    name: 'Locker-Event-Id',
                    in: 'header',
                    required: true,
                    description: "the event's `id`, to de-duplicate before parsing the body",
                    schema: { type: 'string' },
                  },
                ]
              : []),
          ],
          requestBody: { required: true, content: { 'application/json': { schema: table.convert(e.body, 'output') } } },
          responses: {
            '200': {
              description:
                'answer' in e
                  ? e.answer
                  : 'Any answer: platform webhooks count any 2xx as delivered, company notifications ignore it; no retry either way.',
            },
          },
        },
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Parcel-locker platform API',
      version: '1.0.0',
      description: INTRODUCTION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    // Relative: the document is served by the service it describes (`npm start`: http://localhost:3000).
    servers: [{ url: '/', description: 'this service' }],
    tags: TAGS,
    paths: sortKeys(paths),
    webhooks,
    components: { schemas: sortKeys(table.components), securitySchemes: SECURITY_SCHEMES },
  };
}

function operation(
  entry: RouteEntry,
  path: string,
  doc: ServiceDoc | undefined,
  table: SchemaTable,
  errorRef: string,
): Record<string, unknown> {
  const family = FAMILIES[familyOf(entry.path)];
  const s = entry.schemas ?? {};
  const parameters = [
    ...fieldsOf(s.params).map((f) => parameter('path', f, table)),
    ...fieldsOf(s.query).map((f) => parameter('query', f, table)),
    ...(doc?.headers ?? []).map((h) => ({
      name: h.name,
      in: 'header',
      required: h.required,
      description: h.description,
      schema: { type: 'string', minLength: 1, ...(h.maxLength ? { maxLength: h.maxLength } : {}) },
    })),
  ];
  const status = doc?.status ?? 200;
  const success =
    status === 302
      ? { description: 'Redirect', headers: { Location: { description: 'the target', schema: { type: 'string' } } } }
      : { description: 'Success', content: successContent(s.response ?? doc?.response, doc?.contentType, table) };
  const rows: ErrorRow[] = [
    ...(s.params || s.query || s.body ? [VALIDATION] : []),
    ...(s.body ? [BAD_JSON, BODY_TOO_LARGE] : []),
    ...AUTH_ROWS[family.auth],
    ...(doc?.errors ?? []),
    ...(family.rateLimited ? [RATE_LIMITED] : []),
  ];
  const responses: Record<string, unknown> = { [String(status)]: success };
  for (const [code, group] of groupByStatus(rows)) {
    responses[code] = {
      description: group.map((r) => `\`${r.message ?? r.code ?? code}\`: ${r.when}`).join('; '),
      ...(code === '429'
        ? { headers: { 'Retry-After': { description: 'seconds to wait', schema: { type: 'integer', minimum: 1 } } } }
        : {}),
      content: { 'application/json': { schema: errorBodyOf(group, errorRef) } },
    };
  }
  // The spec's last rows: any 5xx is a server error or a temporary unavailability (retry GETs).
  if (family !== FAMILIES.service) {
    responses['5XX'] = {
      description:
        'server error (`INTERNAL_SERVER_ERROR`), or temporarily unavailable (503 `STORAGE_BUSY` with `Retry-After`): retry a GET with exponential delay',
      content: { 'application/json': { schema: { $ref: errorRef } } },
    };
  }
  return {
    operationId: operationIdOf(entry.method, path),
    tags: [doc?.tag ?? 'Undocumented'],
    summary: doc?.summary ?? `${entry.method} ${path}`,
    ...(doc?.description ? { description: doc.description } : {}),
    ...(doc ? {} : { 'x-undocumented': true }),
    security: family.security,
    parameters,
    ...(s.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: table.convert(s.body, 'input'),
                ...(doc?.example ? { example: doc.example } : {}),
              },
            },
          },
        }
      : {}),
    responses: sortKeys(responses),
    'x-codeSamples': [
      {
        lang: 'Shell',
        label: 'curl',
        source: curlSample(
          entry.method,
          path,
          family.sampleAuth,
          s.body ? (doc?.example ?? table.convert(s.body, 'input')) : undefined,
          doc?.headers,
        ),
      },
    ],
  };
}

function successContent(schema: z.ZodType | undefined, contentType: string | undefined, table: SchemaTable) {
  if (contentType) return { [contentType]: { schema: { type: 'string' } } };
  return { 'application/json': { schema: schema ? table.convert(schema, 'output') : {} } };
}

function parameter(where: 'path' | 'query', f: ReturnType<typeof fieldsOf>[number], table: SchemaTable) {
  const schema = table.convert(f.schema, 'input');
  if (f.default !== undefined) schema.default = f.default;
  const isArray = schema.type === 'array';
  return {
    name: f.name,
    in: where,
    required: where === 'path' || f.required,
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    ...(isArray
      ? { style: 'form', explode: true, description: 'repeat the parameter for several values (`ids=A&ids=B`)' }
      : {}),
    schema,
  };
}

function groupByStatus(rows: ErrorRow[]): Map<string, ErrorRow[]> {
  const out = new Map<string, ErrorRow[]>();
  for (const r of rows) {
    const key = String(r.status);
    out.set(key, [...(out.get(key) ?? []), r]);
  }
  return out;
}

const operationIdOf = (method: string, path: string) =>
  method.toLowerCase() +
  path
    .replace(/^\/api\/v1/, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
