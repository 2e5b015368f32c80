/**
 * zod → the JSON Schema (2020-12) that OpenAPI 3.1 and AsyncAPI 3 embed, with zod 4's own
 * `z.toJSONSchema`. Schemas given an `id` (`.meta({ id })`) become shared components: their
 * `$defs` are collected into one table and the references rewritten to `refBase`.
 */
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

export class SchemaTable {
  readonly components: Record<string, JsonSchema> = {};
  constructor(
    private readonly refBase: string,
    private readonly target: 'draft-2020-12' | 'draft-7' = 'draft-2020-12',
  ) {}

  /**
   * `io: 'input'` for what a client sends (a default makes a field optional), `'output'` for
   * what the service answers. Objects are left open: the spec lets either side add fields.
   */
  convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const json = z.toJSONSchema(schema, {
      target: this.target,
      io,
      unrepresentable: 'any',
      reused: 'inline',
    }) as JsonSchema;
    const defs = (json.$defs ?? json.definitions ?? {}) as Record<string, JsonSchema>;
    delete json.$defs;
    delete json.definitions;
    delete json.$schema;
    for (const [name, def] of Object.entries(defs)) {
      const out = this.rewrite(def) as JsonSchema;
      const known = this.components[name];
      if (known && JSON.stringify(known) !== JSON.stringify(out))
        throw new Error(`schema id ${name} names two different shapes`);
      this.components[name] = out;
    }
    return this.rewrite(json) as JsonSchema;
  }

  private rewrite(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((n) => this.rewrite(n));
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && /^#\/(\$defs|definitions)\//.test(v))
        out[k] = this.refBase + v.replace(/^#\/(\$defs|definitions)\//, '');
      // The spec: "Responses may contain fields beyond those listed".
      else if (k === 'additionalProperties' && v === false) continue;
      // z.int()'s safe-integer bounds say nothing to a reader (and make Redoc's examples -9007199254740991).
      else if ((k === 'minimum' && v === Number.MIN_SAFE_INTEGER) || (k === 'maximum' && v === Number.MAX_SAFE_INTEGER))
        continue;
      else out[k] = this.rewrite(v);
    }
    return out;
  }
}

/** The fields of an object schema (request params, query), each with its default when it has one. */
export function fieldsOf(
  schema: z.ZodType | undefined,
): Array<{ name: string; schema: z.ZodType; required: boolean; default?: unknown }> {
  const shape = (schema as { shape?: Record<string, z.ZodType> } | undefined)?.shape;
  if (!shape) return [];
  return Object.entries(shape).map(([name, field]) => {
    const def = (field as { _zod: { def: { type: string; defaultValue?: unknown } } })._zod.def;
    const optional = field.safeParse(undefined).success;
    return {
      name,
      schema: field,
      required: !optional,
      ...(def.type === 'default' ? { default: def.defaultValue } : {}),
    };
  });
}
