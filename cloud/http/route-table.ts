/**
 * Every route an Express app serves, read from the app's own router: the fuzzing suite walks
 * this table, so a route added anywhere is fuzzed without anyone listing it.
 */
import type { Express } from 'express';
import { schemasOf, type RouteSchemas } from './route.ts';

export interface RouteEntry {
  method: string;
  /** the full path with its `:params` */
  path: string;
  /** the schemas given to route(), when the route validates through it */
  schemas?: RouteSchemas;
}

interface Layer {
  rawPath?: string | string[];
  route?: { path: string | string[]; methods: Record<string, boolean>; stack: Layer[] };
  handle?: ((...args: unknown[]) => unknown) & { stack?: Layer[] };
}

export function routeTable(app: Express): RouteEntry[] {
  const out: RouteEntry[] = [];
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '', out);
  return out;
}

function walk(stack: Layer[], prefix: string, out: RouteEntry[]): void {
  for (const layer of stack) {
    if (layer.route) {
      const schemas = layer.route.stack.map((l) => schemasOf(l.handle)).find((s) => s !== undefined);
      for (const path of paths(layer.route.path)) {
        for (const [method, on] of Object.entries(layer.route.methods)) {
          if (on && method !== '_all') out.push({ method: method.toUpperCase(), path: join(prefix, path), schemas });
        }
      }
    } else if (layer.handle?.stack) {
      for (const path of paths(layer.rawPath ?? '/')) walk(layer.handle.stack, join(prefix, path), out);
    }
  }
}

const paths = (p: string | string[]) => (Array.isArray(p) ? p : [p]);
const join = (prefix: string, path: string) =>
  (path === '/' ? prefix : prefix + path).replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');
