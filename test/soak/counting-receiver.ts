/** An HTTP receiver for outbound events that counts deliveries per event (not per request). */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Counts what it receives per event: SMS per phone, notifications per order, webhooks per path and order. */
export async function startCountingReceiver() {
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      let key = `?${req.url}`;
      try {
        const b = JSON.parse(body);
        if (req.url === '/sms') key = `SMS:${b.to}`;
        else if (req.url === '/notify') key = `COMPANY_NOTIFICATION:${b.orderId}`;
        else key = `WEBHOOK:${req.url}:${b.postomatOrderId}`;
      } catch {
        /* counted under the path */
      }
      counts.set(key, (counts.get(key) ?? 0) + 1);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

export type CountingReceiver = Awaited<ReturnType<typeof startCountingReceiver>>;
