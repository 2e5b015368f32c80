/**
 * The contract documents as files (docs/openapi.json, docs/asyncapi.json), written by
 * `npm run openapi` and compared by a test with what the code builds now, so a stale file fails.
 * The route table is read from an app built on deps that no route may touch while being
 * registered: building routes queries nothing. The sandbox routes are in the documents (tagged
 * Sandbox, saying they exist only with SANDBOX=true); a cloud without SANDBOX serves its document
 * without them.
 */
import path from 'node:path';
import { buildApp } from '../cloud/app.ts';
import type { AppConfig, AppDeps } from '../cloud/deps.ts';
import { DEFAULT_MAP_URL_TEMPLATE } from '../cloud/config.ts';
import { SandboxSlot } from '../cloud/services/sandbox/fleet-port.ts';
import { routeTable } from '../cloud/http/route-table.ts';
import { silentLogger } from '../cloud/logger.ts';
import { systemClock } from '../shared/clock.ts';
import { openApiDocument } from '../cloud/openapi/document.ts';
import { asyncApiDocument } from '../cloud/openapi/asyncapi.ts';

/** Settings no route reads while it is registered. */
const CONFIG: AppConfig = {
  rateLimit: { max: 600, windowMs: 60_000 },
  mapUrlTemplate: DEFAULT_MAP_URL_TEMPLATE,
  jwtSecret: 'documents-only-never-signs-0123456789',
};

const unused = new Proxy(
  {},
  {
    get: () => {
      throw new Error('the contract documents are built without a database');
    },
  },
);

export function contractDocuments(): Record<string, unknown> {
  const deps = {
    db: unused,
    dialect: 'sqlite',
    clock: systemClock,
    logger: silentLogger,
    config: CONFIG,
    uow: unused,
    sandbox: new SandboxSlot(),
  } as unknown as AppDeps;
  return {
    [path.join('docs', 'openapi.json')]: openApiDocument(routeTable(buildApp(deps))),
    [path.join('docs', 'asyncapi.json')]: asyncApiDocument(),
  };
}

/** The text of a document file: what `npm run openapi` writes. */
export const fileText = (doc: unknown) => `${JSON.stringify(doc, null, 2)}\n`;
