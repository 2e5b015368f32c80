/** The baseline: a bare Express 5 JSON endpoint, in its own process like the server under test. */
import express from 'express';
const app = express();
app.get('/bare', (_req, res) => void res.json({ id: 'bare', ok: true, at: new Date().toISOString() }));
const server = app.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0 }) + '\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
