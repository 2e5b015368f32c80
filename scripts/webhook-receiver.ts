/**
 * A webhook receiver that an integrator can start from: it checks the `Locker-Signature` of
 * every delivery, refuses stale or forged ones, and handles each event id once (deliveries are
 * at-least-once). Depends on node:crypto and node:http only, so it copies into any project.
 *
 *   WEBHOOK_SECRETS=whsec_… PORT=4000 npx tsx scripts/webhook-receiver.ts
 *
 * WEBHOOK_SECRETS may list several secrets, comma-separated, while you rotate.
 */
import crypto from 'node:crypto';
import http from 'node:http';

/** How far a signature's timestamp may be from our clock: older deliveries may be replays by a third party. */
export const TOLERANCE_SECONDS = 300;

/**
 * True when one `v1=` value of the header is the HMAC-SHA256 of `t.body` under one of `secrets`
 * and `t` is within the tolerance. `body` must be the raw bytes received, not re-serialised JSON.
 */
export function verifyLockerSignature(
  header: string | undefined,
  body: string,
  secrets: string[],
  now = Date.now(),
  toleranceSeconds = TOLERANCE_SECONDS,
): boolean {
  if (!header) return false;
  const parts = header.split(',').map((p) => p.trim().split('=') as [string, string]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(now / 1000 - t) > toleranceSeconds) return false;
  const given = parts.filter(([k]) => k === 'v1').map(([, v]) => Buffer.from(v ?? '', 'hex'));
  return secrets.some((secret) => {
    const expected = crypto.createHmac('sha256', secret).update(`${t}.${body}`).digest();
    // Constant-time comparison: the time taken must not reveal how much of a guess was right.
    return given.some((g) => g.length === expected.length && crypto.timingSafeEqual(g, expected));
  });
}

/** Starts the receiver; `onEvent` sees each verified event once. */
export function startWebhookReceiver(
  secrets: string[],
  onEvent: (event: { id: string; type: string; data: unknown }) => void,
  port = 0,
): Promise<http.Server> {
  const seen = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > 1_000_000) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (!verifyLockerSignature(req.headers['locker-signature'] as string | undefined, body, secrets)) {
        res.writeHead(400).end('bad signature');
        return;
      }
      const event = JSON.parse(body);
      // Answer 2xx for a duplicate too, or it will be sent again.
      if (!seen.has(event.id)) {
        seen.add(event.id);
        onEvent(event);
      }
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) => server.listen(port, () => resolve(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secrets = (process.env.WEBHOOK_SECRETS ?? '').split(',').filter(Boolean);
  if (!secrets.length) {
    console.error('set WEBHOOK_SECRETS to the secret(s) the subscription answers gave you');
    process.exit(1);
  }
  const server = await startWebhookReceiver(
    secrets,
    (e) => console.log(`${e.id} ${e.type}`),
    Number(process.env.PORT ?? 4000),
  );
  console.log(`listening on ${JSON.stringify(server.address())}`);
}
