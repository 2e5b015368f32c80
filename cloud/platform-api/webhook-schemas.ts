/**
 * Webhook bodies with the outbound-target rule on `url`: a URL that names a private, loopback or
 * link-local address is a 400 validation error (the spec's answer for a bad URL), e.g.
 * `body/url must not point to a link-local address (169.254.169.254)`. Names are checked again
 * after DNS resolution when an event is sent (events/http-post.ts).
 */
import { refusedUrl, STRICT_TARGETS, type TargetPolicy } from '../domain/outbound-targets.ts';
import { WebhookCreateBody } from './schemas.ts';

export function webhookBodies(policy: TargetPolicy = STRICT_TARGETS) {
  const url = WebhookCreateBody.shape.url.superRefine((value, ctx) => {
    const why = refusedUrl(policy, value);
    if (why) ctx.addIssue({ code: 'custom', message: `must not point to ${why}` });
  });
  const create = WebhookCreateBody.extend({ url });
  return { create, patch: create.partial() };
}
