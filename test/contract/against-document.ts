/**
 * Checks a real answer against the OpenAPI document with ajv: its status must be documented for
 * the operation, and its JSON body must match that status's schema. The document leaves objects
 * open (the spec lets answers grow); here they are closed, so a field the service sends but the
 * schemas do not name is a failure too: the presenters cannot drift from the document.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export const OPENAPI_FILE = path.resolve(import.meta.dirname, '../../docs/openapi.json');
export const ASYNCAPI_FILE = path.resolve(import.meta.dirname, '../../docs/asyncapi.json');

type Json = Record<string, any>;

export const readDocument = (file = OPENAPI_FILE): Json => JSON.parse(fs.readFileSync(file, 'utf8'));

/** Adds `additionalProperties: false` to every object schema that lists properties, except the parts of an allOf (they describe one object together). */
export function closeObjects(node: unknown, inAllOf = false): unknown {
  if (Array.isArray(node)) return node.map((n) => closeObjects(n, inAllOf));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = closeObjects(v, k === 'allOf');
  if (!inAllOf && out.properties && typeof out.properties === 'object' && !('additionalProperties' in out))
    out.additionalProperties = false;
  return out;
}

export interface Checked {
  problems: string[];
}

export class DocumentCheck {
  private readonly ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(
    readonly doc: Json,
    closed = true,
  ) {
    this.ajv.addSchema({ $id: 'openapi.json', components: closed ? closeObjects(doc.components) : doc.components });
  }

  operation(method: string, openApiPath: string): Json | undefined {
    return this.doc.paths?.[openApiPath]?.[method.toLowerCase()];
  }

  /** What is wrong with this answer of this operation, if anything. */
  problems(method: string, openApiPath: string, status: number, contentType: string | null, text: string): string[] {
    const op = this.operation(method, openApiPath);
    const where = `${method} ${openApiPath} → ${status}`;
    if (!op) return [`${where}: no such operation in the document`];
    // An exact status first, then its range (`5XX`), as OpenAPI reads them.
    const documented = op.responses?.[String(status)] ?? op.responses?.[`${String(status)[0]}XX`];
    if (!documented)
      return [
        `${where}: status not documented (documented: ${Object.keys(op.responses ?? {}).join(', ')}) ${text.slice(0, 200)}`,
      ];
    const content = documented.content as Json | undefined;
    if (!content) return [];
    const json = content['application/json'];
    if (!json) {
      const types = Object.keys(content);
      return types.some((t) => contentType?.startsWith(t))
        ? []
        : [`${where}: content type ${contentType}, documented ${types.join(', ')}`];
    }
    if (!contentType?.startsWith('application/json'))
      return [`${where}: content type ${contentType}, documented application/json`];
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [`${where}: body is not JSON: ${text.slice(0, 200)}`];
    }
    const key = `${method} ${openApiPath} ${status}`;
    let validate = this.cache.get(key);
    if (!validate) {
      validate = this.ajv.compile(retarget(closeObjects(json.schema)) as Json);
      this.cache.set(key, validate);
    }
    if (validate(body)) return [];
    return [
      `${where}: ${this.ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 600)} — body ${text.slice(0, 300)}`,
    ];
  }

  /** What is wrong with a value given one of the document's schemas (a webhook body, say). */
  schemaProblems(schema: Json, value: unknown, where: string): string[] {
    const validate = this.ajv.compile(retarget(closeObjects(schema)) as Json);
    return validate(value)
      ? []
      : [
          `${where}: ${this.ajv.errorsText(validate.errors, { separator: '; ' })} — ${JSON.stringify(value).slice(0, 300)}`,
        ];
  }
}

/** Points `#/components/...` references at the document added under the id `openapi.json`. */
function retarget(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(retarget);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node))
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `openapi.json${v}` : retarget(v);
  return out;
}

/** The document's path of a route table path (`/order/:id` → `/order/{id}`). */
export const openApiPathOf = (routePath: string) => routePath.replace(/:(\w+)/g, '{$1}');
