/**
 * The contract, served by the cloud itself: the OpenAPI document, the AsyncAPI document and a
 * rendered reference at /docs (Redoc's standalone bundle from node_modules: no CDN, the page
 * works with no network beyond the service).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Express } from 'express';
import { route } from '../http/route.ts';
import { routeTable } from '../http/route-table.ts';
import { ASYNCAPI_PATH, DOCS_PATH, OPENAPI_PATH, openApiDocument, REDOC_SCRIPT_PATH } from './document.ts';
import { asyncApiDocument } from './asyncapi.ts';

const REDOC_BUNDLE = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Parcel-locker platform API</title>
  <style>body { margin: 0; }</style>
</head>
<body>
  <redoc spec-url="${OPENAPI_PATH}" hide-download-button="false" expand-responses="200,201"></redoc>
  <script src="${REDOC_SCRIPT_PATH}"></script>
</body>
</html>
`;

/**
 * The page loads nothing from elsewhere: Redoc's footer shows a logo from its CDN, which this
 * policy keeps the browser from fetching (Redoc hides a logo that fails). Redoc styles inline and
 * runs its search in a worker from a blob.
 */
const PAGE_POLICY =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

export function mountContractDocs(app: Express): void {
  // Built on first request, when every route of the app is registered; the app never changes after.
  // Through route() like every other route, so the route table (and the fuzzing suite) sees them.
  let openApi: string | undefined;
  let asyncApi: string | undefined;
  let redoc: Buffer | undefined;
  app.get(
    OPENAPI_PATH,
    route({}, ({ res }) => {
      openApi ??= JSON.stringify(openApiDocument(routeTable(app)));
      res.type('application/json').send(openApi);
    }),
  );
  app.get(
    ASYNCAPI_PATH,
    route({}, ({ res }) => {
      asyncApi ??= JSON.stringify(asyncApiDocument());
      res.type('application/json').send(asyncApi);
    }),
  );
  app.get(
    DOCS_PATH,
    route({}, ({ res }) => {
      res.type('text/html').set({ 'Cache-Control': 'no-cache', 'Content-Security-Policy': PAGE_POLICY }).send(PAGE);
    }),
  );
  app.get(
    REDOC_SCRIPT_PATH,
    route({}, async ({ res }) => {
      // About 1 MB, read once: the page is for people, not a hot path.
      redoc ??= await fs.promises.readFile(REDOC_BUNDLE);
      res.type('text/javascript').set('Cache-Control', 'public, max-age=3600').send(redoc);
    }),
  );
}
