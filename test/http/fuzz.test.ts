/**
 * HTTP fuzzing from the route table (issue 16): every route the app registers, with a valid
 * credential of its family, gets its valid request broken one part at a time by fast-check
 * (fixed seed, bounded runs): path params, query values (repeated too), body fields, whole
 * bodies and content types. Whatever it sends:
 * - no 5xx, except the spec's own (502 on platform locker access, 500 POSTOMAT_NOT_FOUND on
 *   locker order create, 500 from the marketplace's locker-order list, 502 `Postomat provider error`);
 * - every refusal in the spec's error shape `{ statusCode, error, message[, code] }`;
 * - no request takes longer than REQUEST_BOUND_MS (a hang detector, far above a normal answer);
 * - a refused request writes no row (the tables the API writes, counted before and after).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import fc from 'fast-check';
import { sql } from 'kysely';
import { DIALECTS } from '../helpers/storage.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { buildApp } from '../../cloud/app.ts';
import { routeTable, type RouteEntry } from '../../cloud/http/route-table.ts';
import type { Db } from '../../cloud/storage/database.ts';
import { jsonValue, pathSegment, percentEncode, queryValues, rawBody, toJson, type RawBody } from './fuzz-inputs.ts';
import { seedFuzzWorld, type Baseline, type FuzzWorld } from './fuzz-world.ts';

const SEED = 1616;
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 10);
const REQUEST_BOUND_MS = 5_000;
/** Fields left alone by the mutations (none today: add one only with the reason beside it). */
const SKIPPED_FIELDS = new Set<string>();

type Mutation =
  | { kind: 'param'; name: string; value: string }
  | { kind: 'query'; name: string; values: string[] }
  | { kind: 'field'; path: string[]; value: unknown }
  | { kind: 'body'; value: unknown }
  | { kind: 'raw'; raw: RawBody };

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

function mutationsOf(entry: RouteEntry, baseline: Baseline): fc.Arbitrary<Mutation> {
  const options: fc.Arbitrary<Mutation>[] = [];
  const params = [...entry.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  if (params.length)
    options.push(
      fc.record({ kind: fc.constant('param' as const), name: fc.constantFrom(...params), value: pathSegment }),
    );
  const queryKeys = [
    ...new Set([
      ...Object.keys(shapeOf(entry.schemas?.query)),
      ...Object.keys(baseline.query ?? {}),
      'page',
      'pageSize',
      'made_up',
    ]),
  ];
  options.push(
    fc.record({ kind: fc.constant('query' as const), name: fc.constantFrom(...queryKeys), values: queryValues }),
  );
  if (entry.method !== 'GET') {
    const fields = [
      ...leafPaths(baseline.body),
      ...Object.keys(shapeOf(entry.schemas?.body)).map((k) => [k]),
      ['made_up'],
    ].filter((p) => !SKIPPED_FIELDS.has(p.at(-1)!));
    options.push(
      fc.record({ kind: fc.constant('field' as const), path: fc.constantFrom(...fields), value: jsonValue }),
    );
    options.push(fc.record({ kind: fc.constant('body' as const), value: jsonValue }));
    options.push(fc.record({ kind: fc.constant('raw' as const), raw: rawBody }));
  }
  return fc.oneof(...options);
}

function shapeOf(schema: unknown): Record<string, unknown> {
  return (schema as { shape?: Record<string, unknown> } | undefined)?.shape ?? {};
}

function leafPaths(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return prefix.length ? [prefix] : [];
  return Object.entries(value).flatMap(([k, v]) => leafPaths(v, [...prefix, k]));
}

function withValue(body: unknown, path: string[], value: unknown): unknown {
  const copy = structuredClone(body ?? {}) as Record<string, any>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] = typeof at[key] === 'object' && at[key] !== null ? at[key] : {};
  at[path.at(-1)!] = value;
  return copy;
}

function requestOf(entry: RouteEntry, baseline: Baseline, credentials: Record<string, string>, m: Mutation): Sent {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(baseline.params ?? {})) params[k] = percentEncode(v);
  if (m.kind === 'param') params[m.name] = m.value;
  const path = entry.path.replace(/:(\w+)/g, (_, name: string) => params[name] ?? 'x');
  const query = new Map<string, string[]>(
    Object.entries(baseline.query ?? {}).map(([k, v]) => [k, [percentEncode(v)]]),
  );
  if (m.kind === 'query') query.set(m.name, m.values);
  const qs = [...query].flatMap(([k, vs]) => vs.map((v) => `${percentEncode(k)}=${v}`)).join('&');
  const headers: Record<string, string> = { ...credentials, ...(baseline.headers?.() ?? {}) };
  let body: string | undefined;
  if (m.kind === 'raw') {
    body = m.raw.text;
    if (m.raw.contentType) headers['content-type'] = m.raw.contentType;
    if (m.raw.contentEncoding) headers['content-encoding'] = m.raw.contentEncoding;
  } else if (entry.method !== 'GET') {
    const value =
      m.kind === 'field' ? withValue(baseline.body, m.path, m.value) : m.kind === 'body' ? m.value : baseline.body;
    if (value !== undefined) {
      body = toJson(value);
      headers['content-type'] = 'application/json';
    }
  }
  return { method: entry.method, url: qs ? `${path}?${qs}` : path, headers, body };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function send(base: string, r: Sent): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    // An explicit length: Node sends a DELETE's body neither chunked nor sized otherwise.
    const headers =
      r.body === undefined ? r.headers : { ...r.headers, 'content-length': String(Buffer.byteLength(r.body)) };
    const req = http.request(base + r.url, { method: r.method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
          ms: performance.now() - started,
        }),
      );
      res.on('error', reject);
    });
    req.setTimeout(REQUEST_BOUND_MS * 3, () => req.destroy(new Error(`no answer in ${REQUEST_BOUND_MS * 3} ms`)));
    req.on('error', reject);
    req.end(r.body);
  });
}

/** The spec's own 5xx answers: anything else is a fault. */
function specFiveHundred(entry: RouteEntry, status: number, body: any): boolean {
  if (status === 502 && entry.path.startsWith('/api/v1/integrations/postomat/')) return true;
  if (status === 500 && entry.method === 'POST' && entry.path === '/api/v1/integration/company/order/create')
    return body?.message === 'POSTOMAT_NOT_FOUND';
  if (status === 500 && entry.path === '/api/v1/integrations/market-company/order/list')
    return body?.code === undefined;
  if (status === 502 && entry.path.startsWith('/api/v1/integrations/market-company/parcel/'))
    return body?.message === 'Postomat provider error';
  return false;
}

function errorShapeProblem(status: number, text: string): string | undefined {
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return 'body is not JSON';
  }
  if (body === null || typeof body !== 'object') return 'body is not an object';
  if (body.statusCode !== status) return `statusCode ${body.statusCode} differs from ${status}`;
  if (typeof body.error !== 'string' || typeof body.message !== 'string') return 'error or message missing';
  if (body.code !== undefined && typeof body.code !== 'string') return 'code is not a string';
  // requestId: the extra field of error bodies from the app (cloud/http/request-id.ts); the
  // server's own refusals before any request exists (431, 408) have none.
  if (body.requestId !== undefined && typeof body.requestId !== 'string') return 'requestId is not a string';
  if (body.requestId === undefined && status !== 431 && status !== 408) return 'requestId missing';
  const extra = Object.keys(body).filter((k) => !['statusCode', 'error', 'message', 'code', 'requestId'].includes(k));
  if (extra.length) return `unexpected fields ${extra.join(', ')}`;
  return undefined;
}

/**
 * The tables a request of the API writes to (rows the routes insert or delete), counted in one
 * query around every request: all ~60 tables cost several times more on a loaded machine.
 */
const WRITTEN_TABLES = [
  'recipient',
  'locker_order',
  'order_status',
  'order_code',
  'outbox_event',
  'locker_sync_change',
  'refresh_token',
  'platform_api_key',
  'platform_webhook',
  'platform_client',
  'payment_order',
  'parcel',
  'parcel_status',
  'market_idempotency',
  'bulk_job',
];

async function tableCounts(db: Db): Promise<Record<string, number>> {
  const parts = WRITTEN_TABLES.map((n) => sql`(select count(*) from ${sql.table(n)}) as ${sql.ref(n)}`);
  const row = (await sql<Record<string, number | string>>`select ${sql.join(parts)}`.execute(db)).rows[0];
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
}

const changed = (a: Record<string, number>, b: Record<string, number>) =>
  Object.keys(b)
    .filter((k) => a[k] !== b[k])
    .map((k) => `${k} ${a[k]}→${b[k]}`);

const describeSent = (r: Sent) =>
  `${r.method} ${r.url.slice(0, 200)}${r.body !== undefined ? ` body ${r.body.slice(0, 150)}${r.body.length > 150 ? `… (${r.body.length} chars)` : ''}` : ''}`;

for (const dialect of DIALECTS) {
  describe(`HTTP fuzzing from the route table (${dialect.name})`, () => {
    let cloud: TestCloud;
    let world: FuzzWorld;
    let routes: RouteEntry[];

    before(async () => {
      // Failure limits off: the suite sends thousands of bad requests from one address on purpose.
      cloud = await startTestCloud(dialect, { env: { AUTH_FAILURE_MAX: '0', LOGIN_FAILURE_MAX: '0' } });
      world = await seedFuzzWorld(cloud);
      routes = routeTable(buildApp(cloud.deps));
    });
    after(async () => {
      agent.destroy();
      await cloud?.stop();
    });

    it('walks every registered route, each with a baseline request', () => {
      assert.ok(routes.length >= 50, `only ${routes.length} routes found`);
      const missing = routes
        .filter((r) => !world.baselines[`${r.method} ${r.path}`])
        .map((r) => `${r.method} ${r.path}`);
      assert.deepEqual(missing, [], 'routes without a baseline in test/http/fuzz-world.ts');
      const unvalidated = routes
        .filter((r) => !r.schemas && r.path !== '/health' && r.path !== '/ready')
        .map((r) => `${r.method} ${r.path}`);
      assert.deepEqual(unvalidated, [], 'routes that do not validate through route()');
    });

    it("answers malformed input with the spec's refusals, fast, and writes nothing when it refuses", async () => {
      const problems: string[] = [];
      let sent = 0;
      let counts = await tableCounts(cloud.storage.db);
      for (const [i, entry] of routes.entries()) {
        const baseline = world.baselines[`${entry.method} ${entry.path}`] ?? {};
        const samples = fc.sample(mutationsOf(entry, baseline), { seed: SEED + i, numRuns: RUNS_PER_ROUTE });
        for (const m of samples) {
          const r = requestOf(entry, baseline, world.credentialsOf(entry.path), m);
          const res = await send(cloud.url, r);
          sent++;
          const where = `${describeSent(r)} → ${res.status} ${res.text.slice(0, 200)}`;
          let body: any;
          try {
            body = JSON.parse(res.text);
          } catch {
            body = undefined;
          }
          if (res.status >= 500 && !specFiveHundred(entry, res.status, body)) problems.push(`5xx: ${where}`);
          if (res.ms > REQUEST_BOUND_MS) problems.push(`slow (${Math.round(res.ms)} ms): ${where}`);
          const now = await tableCounts(cloud.storage.db);
          if (res.status >= 400) {
            const shape = errorShapeProblem(res.status, res.text);
            if (shape) problems.push(`shape (${shape}): ${where}`);
            const rows = changed(counts, now);
            if (rows.length) problems.push(`rows written by a refusal (${rows.join(', ')}): ${where}`);
          }
          counts = now;
        }
      }
      // FUZZ_REPORT=file writes every problem found, not only the first ones the assertion shows.
      if (process.env.FUZZ_REPORT)
        fs.appendFileSync(process.env.FUZZ_REPORT, problems.map((p) => `${dialect.name} ${p}\n`).join(''));
      assert.ok(sent >= routes.length * RUNS_PER_ROUTE * 0.9, `only ${sent} requests sent`);
      assert.deepEqual(problems.slice(0, 25), [], `${problems.length} problems in ${sent} requests`);
    });
  });
}
