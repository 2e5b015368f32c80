import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';

/** The page's files, by the path they are served at: a fixed list, so no path reaches the disk. */
const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};

const WEB_DIR = fileURLToPath(new URL('./web/', import.meta.url));

/** Nothing but this origin: no CDN, no inline script, nothing framed. */
const HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // Read from disk on every request: an edited page shows on reload, without a restart.
  'cache-control': 'no-cache',
};

export function isPagePath(path: string): boolean {
  return Object.hasOwn(FILES, path);
}

/** Serves the fleet page (hardware-sim/web/: plain HTML, CSS and JS, no build step). */
export async function sendPage(res: ServerResponse, path: string): Promise<void> {
  const { file, type } = FILES[path];
  const body = await readFile(WEB_DIR + file);
  res.writeHead(200, { 'content-type': type, 'content-length': body.length, ...HEADERS });
  res.end(body);
}
