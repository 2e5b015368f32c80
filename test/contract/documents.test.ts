/**
 * The contract documents (issue 17): docs/openapi.json and docs/asyncapi.json are what the code
 * builds now (a stale file fails), the running service serves the same, the OpenAPI document
 * names every route the app registers and nothing else, and both pass their standard linters
 * (Redocly's recommended rules, the AsyncAPI parser's validation).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Parser } from '@asyncapi/parser';
import { contractDocuments, fileText } from '../../scripts/contract-files.ts';
import { MQTT_TOPICS } from '../../cloud/openapi/asyncapi.ts';
import { buildApp } from '../../cloud/app.ts';
import { routeTable } from '../../cloud/http/route-table.ts';
import { openApiPath, operationDocOf } from '../../cloud/openapi/document.ts';
import { startTestCloud, type TestCloud } from '../helpers/cloud.ts';
import { DIALECTS } from '../helpers/storage.ts';
import { ASYNCAPI_FILE, OPENAPI_FILE, openApiPathOf, readDocument } from './against-document.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Redocly warnings that state a fact of the API rather than a fault of the document, each with its reason. */
const ACCEPTED_WARNINGS = new Set([
  // The service's own routes (health, the documents, the docs page) refuse nothing.
  'operation-4xx-response #/paths/~1health/get/responses',
  'operation-4xx-response #/paths/~1ready/get/responses',
  'operation-4xx-response #/paths/~1api~1v1~1openapi.json/get/responses',
  'operation-4xx-response #/paths/~1asyncapi.json/get/responses',
  'operation-4xx-response #/paths/~1docs/get/responses',
  'operation-4xx-response #/paths/~1docs~1redoc.standalone.js/get/responses',
  // The spec's map link answers with a 302 redirect, never a 2xx.
  'operation-2xx-response #/paths/~1api~1v1~1public~1postomat~1map~1{shortId}/get/responses',
]);

describe('contract documents', () => {
  it('docs/openapi.json and docs/asyncapi.json are current (run `npm run openapi` after changing routes or schemas)', () => {
    for (const [file, doc] of Object.entries(contractDocuments())) {
      const onDisk = fs.readFileSync(path.join(ROOT, file), 'utf8');
      assert.ok(onDisk === fileText(doc), `${file} is stale: run npm run openapi`);
    }
  });

  it('the OpenAPI document passes Redocly lint (recommended rules) with no errors and no unexplained warnings', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: fs.readFileSync(OPENAPI_FILE, 'utf8'),
      absoluteRef: OPENAPI_FILE,
      config,
    });
    const unexplained = problems
      .map((p) => ({ severity: p.severity, id: `${p.ruleId} ${p.location?.[0]?.pointer ?? ''}`, message: p.message }))
      .filter((p) => p.severity === 'error' || !ACCEPTED_WARNINGS.has(p.id));
    assert.deepEqual(unexplained, []);
  });

  it('the AsyncAPI document is valid AsyncAPI 3 by the AsyncAPI parser (no error, no warning), with every topic of the contract', async () => {
    const { document, diagnostics } = await new Parser().parse(fs.readFileSync(ASYNCAPI_FILE, 'utf8'));
    // Severity 0 is an error, 1 a warning: neither is accepted.
    const errors = diagnostics.filter((d) => d.severity <= 1).map((d) => `${d.path.join('/')}: ${d.message}`);
    assert.deepEqual(errors, []);
    assert.ok(document, 'parsed');
    assert.equal(document.version(), '3.1.0');
    const addresses = document
      .channels()
      .all()
      .map((c) => c.address())
      .sort();
    assert.deepEqual(
      addresses,
      ['acks', 'cells', 'commands', 'connection', 'events', 'health', 'responses', 'selftest', 'sync'].map(
        (t) => `lockers/{lockerId}/${t}`,
      ),
    );
    const actions = Object.fromEntries(
      document
        .operations()
        .all()
        .map((o) => [o.channels().all()[0].address(), o.action()]),
    );
    assert.equal(actions['lockers/{lockerId}/events'], 'send', 'the agent publishes its events');
    assert.equal(actions['lockers/{lockerId}/sync'], 'receive', 'the agent receives its orders');
    // Each topic's example is a message both ends would accept.
    for (const [name, topic] of Object.entries(MQTT_TOPICS)) {
      const parsed = topic.payload.safeParse(topic.example);
      assert.ok(parsed.success, `${name} example: ${parsed.error?.message}`);
    }
  });
});

for (const dialect of DIALECTS.slice(0, 1)) {
  describe(`the served contract (${dialect.name})`, () => {
    let cloud: TestCloud;
    before(async () => {
      // With the sandbox on, the served document is the whole committed one (its Sandbox operations included).
      cloud = await startTestCloud(dialect, { env: { SANDBOX: 'true' } });
    });
    after(async () => {
      await cloud?.stop();
    });

    it('serves the committed documents at /api/v1/openapi.json and /asyncapi.json', async () => {
      for (const [url, file] of [
        ['/api/v1/openapi.json', OPENAPI_FILE],
        ['/asyncapi.json', ASYNCAPI_FILE],
      ] as const) {
        const res = await cloud.request('GET', url);
        assert.equal(res.status, 200, url);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
        assert.deepEqual(res.body, readDocument(file), `${url} differs from ${path.basename(file)}`);
      }
    });

    it('documents every route the app registers, and no path it does not serve', () => {
      const doc = readDocument();
      const registered = new Set(
        routeTable(buildApp(cloud.deps))
          .filter((r) => r.method !== 'HEAD')
          .map((r) => `${r.method} ${openApiPathOf(r.path)}`),
      );
      const documented = new Set(
        Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) =>
          Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
        ),
      );
      assert.deepEqual(
        [...registered].filter((r) => !documented.has(r)),
        [],
        'routes missing from the document',
      );
      assert.deepEqual(
        [...documented].filter((d) => !registered.has(d)),
        [],
        'documented operations no route serves',
      );
      const undocumented = Object.values(doc.paths as Record<string, Record<string, any>>)
        .flatMap((ops) => Object.values(ops))
        .filter((op) => op['x-undocumented']);
      assert.deepEqual(
        undocumented.map((op) => op.summary),
        [],
        'routes without prose in cloud/openapi/*-operations.ts',
      );
      assert.ok(registered.size >= 60, `only ${registered.size} operations`);
    });

    it('every example body is a valid request of its route (the shell variables given demo-like values)', () => {
      const values: Record<string, string> = {
        $EMAIL: 'admin@silkroad.example',
        $PASSWORD: 'demo-password',
        $REFRESH: 'a.refresh.token',
        $LOCKER: 'ckx1a2b3c4d5e6f7g8h9',
      };
      const fill = (v: unknown): unknown =>
        typeof v === 'string'
          ? (values[v] ?? v)
          : Array.isArray(v)
            ? v.map(fill)
            : v && typeof v === 'object'
              ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]))
              : v;
      let checked = 0;
      for (const r of routeTable(buildApp(cloud.deps))) {
        const example = operationDocOf(`${r.method} ${openApiPath(r.path)}`)?.example;
        if (example === undefined) continue;
        assert.ok(r.schemas?.body, `${r.method} ${r.path} has an example but takes no body`);
        const parsed = r.schemas.body.safeParse(fill(example));
        assert.ok(parsed.success, `${r.method} ${r.path}: ${parsed.error?.message}`);
        checked++;
      }
      assert.ok(checked >= 8, `only ${checked} examples`);
    });
  });
}
