/** The typed client's types are generated from the committed OpenAPI document: a stale file fails (run `npm run client:types`). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { generate, TYPES_FILE, typeOf } from '../../scripts/client-types.ts';

describe('client types', () => {
  it('client/src/api-types.ts is what docs/openapi.json generates', () => {
    const doc = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../docs/openapi.json'), 'utf8'));
    assert.ok(
      readFileSync(TYPES_FILE, 'utf8') === generate(doc),
      'client/src/api-types.ts is stale: run npm run client:types',
    );
  });

  it('turns JSON Schema into TypeScript: objects with optional fields, unions, nullables, arrays, refs', () => {
    assert.equal(typeOf({ type: ['string', 'null'] }), 'string | null');
    assert.equal(typeOf({ enum: ['A', 'B'] }), '"A" | "B"');
    assert.equal(typeOf({ type: 'array', items: { $ref: '#/components/schemas/Order' } }), 'Array<Schemas["Order"]>');
    assert.equal(
      typeOf({ type: 'object', properties: { a: { type: 'integer' }, b: { type: 'boolean' } }, required: ['a'] }),
      '{\n  a: number;\n  b?: boolean;\n}',
    );
    assert.equal(typeOf({ anyOf: [{ type: 'string' }, { const: 3 }] }), 'string | 3');
  });
});
