import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, ConfigError } from '../../cloud/config.ts';
import { resolveJwtSecret } from '../../cloud/platform-api/jwt-secret.ts';

describe('the JWT secret', () => {
  it('is required, at least 32 characters, when NODE_ENV=production', () => {
    assert.throws(
      () => loadConfig({ NODE_ENV: 'production' }),
      (err: unknown) =>
        err instanceof ConfigError && /JWT_SECRET: JWT_SECRET is required when NODE_ENV=production/.test(err.message),
    );
    assert.throws(() => loadConfig({ JWT_SECRET: 'short' }), /JWT_SECRET must be at least 32 characters/);
    assert.equal(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) }).JWT_SECRET, 'x'.repeat(32));
  });

  it('JWT_SECRET wins; without it one is generated beside the SQLite file, private, and reused', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-jwt-'));
    try {
      const db = path.join(dir, 'cloud.db');
      assert.equal(resolveJwtSecret({ JWT_SECRET: 'y'.repeat(40), DATABASE_URL: db }), 'y'.repeat(40));
      assert.ok(!fs.existsSync(path.join(dir, 'jwt-secret')));
      const first = resolveJwtSecret({ JWT_SECRET: undefined, DATABASE_URL: db });
      assert.ok(first.length >= 32);
      const file = path.join(dir, 'jwt-secret');
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      assert.equal(
        resolveJwtSecret({ JWT_SECRET: undefined, DATABASE_URL: `file:${db}` }),
        first,
        'a restart signs alike',
      );
      fs.writeFileSync(file, 'too short\n');
      assert.throws(() => resolveJwtSecret({ JWT_SECRET: undefined, DATABASE_URL: db }), /shorter than 32 characters/);
      assert.notEqual(
        resolveJwtSecret({ JWT_SECRET: undefined, DATABASE_URL: ':memory:' }),
        first,
        'in-memory databases get a per-process secret',
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
