/**
 * The contract, served by the cloud itself: the OpenAPI document, the AsyncAPI document and a
 * rendered reference at /docs (Redoc's standalone bundle from node_modules: no CDN, the page
 * works with no network beyond the service).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Express, Request, Response } from 'express';
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

export function mountContractDocs(app: Express): void {
  // Built on first request, when every route of the app is registered; the app never changes after.
  let openApi: string | undefined;
  let asyncApi: string | undefined;
  app.get(OPENAPI_PATH, (_req: Request, res: Response) => {
    openApi ??= JSON.stringify(openApiDocument(routeTable(app)));
    res.type('application/json').send(openApi);
  });
  app.get(ASYNCAPI_PATH, (_req: Request, res: Response) => {
    asyncApi ??= JSON.stringify(asyncApiDocument());
    res.type('application/json').send(asyncApi);
  });
  app.get(DOCS_PATH, (_req: Request, res: Response) => {
    res.type('text/html').set('Cache-Control', 'no-cache').send(PAGE);
  });
  app.get(REDOC_SCRIPT_PATH, (_req: Request, res: Response) => {
    res.type('text/javascript').set('Cache-Control', 'public, max-age=3600');
    fs.createReadStream(REDOC_BUNDLE).on('error', () => res.destroy()).pipe(res);
  });
}
