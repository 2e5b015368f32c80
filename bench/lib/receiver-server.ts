/** A local event receiver for benchmarks, in its own process: `ok` answers 204, `hang` never answers. */
import http from 'node:http';
const mode = process.argv[2] ?? 'ok';
let count = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    count++;
    if (mode !== 'hang') res.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
});
process.on('SIGTERM', () => {
  process.stderr.write(`[receiver] ${count} requests\n`);
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
