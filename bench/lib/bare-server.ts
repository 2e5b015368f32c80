/**
 * The baseline: a bare Express 5 JSON endpoint, in its own process like the server under test,
 * answering the way the cloud answers (cloud/http/send-json.ts: no ETag, no X-Powered-By, one
 * writeHead), so a ratio to it compares the application's work, not two response paths.
 * (Express's res.json with its ETag was worth ~30% of a bare endpoint's throughput here: issue 23.)
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import express from 'express';
import { sendJson } from '../../cloud/http/send-json.ts';

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
const answer = () => ({ id: 'bare', ok: true, at: new Date().toISOString() });
app.get('/bare', (_req, res) => sendJson(res, 200, answer()));
// The cloud's prepared reads run at the end of the event-loop turn (cloud/storage/read-batcher.ts),
// so its answers to one turn's requests go out together. This endpoint answers the same way,
// to show what that alone is worth to an endpoint that does no work.
app.get('/bare-end-of-turn', (_req, res) => void setImmediate(() => sendJson(res, 200, answer())));

// The baseline of order creation: one row committed per request, with the cloud's durability
// (WAL, synchronous = FULL: cloud/storage/database.ts), so creates compare the application's work
// (validation, codes, the order's rows and events) with the commit every create must pay anyway.
const dbDir = fs.mkdtempSync(path.join(os.tmpdir(), 'plk-bare-'));
const db = new SQLite(path.join(dbDir, 'bare.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec('create table bare_row (id text primary key, body text not null, created_at text not null)');
const insert = db.prepare('insert into bare_row (id, body, created_at) values (?, ?, ?)');
app.post('/bare-insert', express.json(), (req, res) => {
  const id = randomUUID();
  insert.run(id, JSON.stringify(req.body), new Date().toISOString());
  sendJson(res, 201, { id });
});

const server = app.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
});
process.on('SIGTERM', () =>
  server.close(() => {
    db.close();
    fs.rmSync(dbDir, { recursive: true, force: true });
    process.exit(0);
  }),
);
