/**
 * A curl line per operation, written with the shell variables `npm start` prints ($KEY,
 * $LOCKER, $PKEY, $MKEY) so that it runs against the demo data once the variables are set.
 */
import type { JsonSchema } from './json-schema.ts';

/** Path parameters the demo banner gives a variable for; others stay as `<name>` to fill in. */
const KNOWN: Record<string, string> = { postomatId: '$LOCKER' };

/**
 * `body`: an example body (used as it is), or the body's JSON Schema (an example is made of its
 * required fields). `headers`: required ones are added with a `<name>` to fill in.
 */
export function curlSample(
  method: string,
  path: string,
  auth: string,
  body?: unknown,
  headers: Array<{ name: string; required: boolean }> = [],
): string {
  const url = `$URL${path.replace(/\{(\w+)\}/g, (_m, name: string) => KNOWN[name] ?? `<${name}>`)}`;
  const parts = [
    'curl -s',
    method === 'GET' ? '' : `-X ${method}`,
    auth,
    ...headers.filter((h) => h.required).map((h) => `-H '${h.name}: <${h.name.toLowerCase()}>'`),
  ];
  // Double quotes, so that $LOCKER in the body expands as the banner's own sample does.
  if (body)
    parts.push(
      `-H 'Content-Type: application/json' -d "${shellQuoted(JSON.stringify(isSchema(body) ? exampleOf(body) : body))}"`,
    );
  parts.push(`"${url}"`);
  return parts.filter(Boolean).join(' ');
}

/** Text inside a double-quoted shell word: backslashes and quotes escaped, `$VARIABLES` left to expand. */
const shellQuoted = (text: string) => text.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('`', '\\`');

const isSchema = (v: unknown): v is JsonSchema =>
  !!v && typeof v === 'object' && (v as JsonSchema).type === 'object' && 'properties' in (v as JsonSchema);

/** A body with the required fields, each from its schema's example, enum or type. */
function exampleOf(schema: JsonSchema): unknown {
  if ('example' in schema) return schema.example;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.anyOf)) return exampleOf(schema.anyOf[0] as JsonSchema);
  switch (schema.type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = (schema.required ?? []) as string[];
      return Object.fromEntries(required.map((k) => [k, KNOWN[k] ?? exampleOf(props[k] ?? {})]));
    }
    case 'array':
      return [];
    case 'boolean':
      return false;
    case 'integer':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'string':
      return typeof schema.pattern === 'string' && schema.pattern.includes('\\+') ? '+996555123456' : 'text';
    default:
      return null;
  }
}
