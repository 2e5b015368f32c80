/**
 * The cloud's outbound senders, built from the configuration (wiring, beside server.ts): the
 * dispatcher of the spec's notifications, webhooks and SMS, and the subscriptions' sender.
 */
import { targetPolicyOf, type CloudConfig } from './config.ts';
import type { Clock } from '../shared/clock.ts';
import type { Logger } from './logger.ts';
import type { Storage } from './storage/database.ts';
import { Dispatcher, type DispatcherDeps } from './events/dispatcher.ts';
import { HttpSmsProvider, LogSmsProvider } from './events/sms.ts';
import { guardedPost, keepAlivePost, type PostJson } from './events/http-post.ts';
import { claimLoopBounds } from './events/claim-loop.ts';
import { WebhookSender } from './webhooks/sender.ts';

/**
 * Webhooks and company notifications go through the outbound-target rule; the SMS gateway is
 * the operator's own (SMS_GATEWAY_URL) and may be on a private network, so it does not.
 * Each sender keeps its connections alive, at most as many to one receiver as it sends to it
 * at once (claim-loop.ts); they close when it stops.
 */
export function createDispatcher(
  config: CloudConfig,
  storage: Storage,
  clock: Clock,
  logger: Logger,
  publicBaseUrl: string,
  post?: PostJson,
  onDelivered?: DispatcherDeps['onDelivered'],
): Dispatcher {
  const pool = keepAlivePost(claimLoopBounds(config.EVENT_CONCURRENCY).perOrigin);
  const sms =
    config.SMS_PROVIDER === 'http'
      ? new HttpSmsProvider(config.SMS_GATEWAY_URL!, config.SMS_GATEWAY_TOKEN, config.EVENT_TIMEOUT_MS, pool.post)
      : new LogSmsProvider(logger.child({ component: 'sms' }));
  return new Dispatcher({
    db: storage.db,
    dialect: storage.dialect,
    clock,
    logger: logger.child({ component: 'events' }),
    sms,
    post: guardedPost(targetPolicyOf(config), post ?? pool.post),
    closePost: () => pool.destroy(),
    onDelivered,
    options: {
      webhooksEnabled: config.WEBHOOKS_ENABLED,
      timeoutMs: config.EVENT_TIMEOUT_MS,
      concurrency: config.EVENT_CONCURRENCY,
      pollMs: config.EVENT_POLL_MS,
      leaseMs: config.EVENT_LEASE_MS ?? Math.max(60_000, config.EVENT_TIMEOUT_MS * 4),
      publicBaseUrl: config.PUBLIC_BASE_URL ?? publicBaseUrl,
    },
  });
}

/** The webhook subscriptions' sender (issue 22), through the same outbound-target rule. */
export function createWebhookSender(
  config: CloudConfig,
  storage: Storage,
  clock: Clock,
  logger: Logger,
  post?: PostJson,
): WebhookSender {
  const pool = keepAlivePost(claimLoopBounds(config.EVENT_CONCURRENCY).perOrigin);
  return new WebhookSender({
    db: storage.db,
    dialect: storage.dialect,
    clock,
    logger: logger.child({ component: 'webhooks' }),
    post: guardedPost(targetPolicyOf(config), post ?? pool.post),
    closePost: () => pool.destroy(),
    options: {
      timeoutMs: config.EVENT_TIMEOUT_MS,
      concurrency: config.EVENT_CONCURRENCY,
      pollMs: config.EVENT_POLL_MS,
      leaseMs: config.EVENT_LEASE_MS ?? Math.max(60_000, config.EVENT_TIMEOUT_MS * 4),
      retry: {
        baseMs: config.WEBHOOK_RETRY_BASE_MS,
        maxDelayMs: config.WEBHOOK_RETRY_MAX_DELAY_MS,
        windowMs: config.WEBHOOK_RETRY_WINDOW_MS,
      },
    },
  });
}
