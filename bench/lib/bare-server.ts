/**
 * The baseline: a bare Express 5 JSON endpoint, in its own process like the server under test,
 * answering the way the cloud answers (cloud/http/send-json.ts: no ETag, no X-Powered-By, one
 * writeHead), so a ratio to it compares the application's work, not two response paths.
 * (Express's res.json with its ETag was worth ~30% of a bare endpoint's throughput here: issue 23.)
 */
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
const server = app.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
