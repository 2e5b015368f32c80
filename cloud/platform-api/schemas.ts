/** Request schemas of the Platform API's sign-in, API-key and webhook endpoints. */
import { z } from 'zod';
import { int4Id, pageNumber, pageSize, qInt } from '../http/query.ts';
import { line, plainText, text, TEXT_MAX } from '../http/text.ts';
import { WEBHOOK_SUBTYPES, WEBHOOK_TYPES } from '../domain/platform/enums.ts';

/** A platform record id in a path: an integer >= 1. */
export const IntIdParams = z.object({ id: qInt(int4Id()) });

/** Key and webhook lists: page size 1 unless asked (the spec's default). */
export const SmallPageQuery = z.object({
  page: qInt(pageNumber()).default(1),
  pageSize: qInt(pageSize()).default(1),
});

export const LoginBody = z.object({
  email: line(TEXT_MAX.email, { trim: true }).toLowerCase().pipe(z.email()),
  password: line(TEXT_MAX.password).min(8),
});

export const RefreshBody = z.object({ refreshToken: line(TEXT_MAX.token) });

export const ApiKeyCreateBody = z.object({ title: line(TEXT_MAX.title).min(1) });

const httpUrl = () => plainText(z.url({ protocol: /^https?$/ }).max(TEXT_MAX.url));

export const WebhookCreateBody = z.object({
  type: z.enum(WEBHOOK_TYPES),
  subtype: z.enum(WEBHOOK_SUBTYPES).nullable().optional(),
  url: httpUrl(),
  payloadTemplate: text(TEXT_MAX.payloadTemplate).nullable().optional(),
  apiKey: line(TEXT_MAX.headerValue).nullable().optional(),
});

export const WebhookPatchBody = WebhookCreateBody.partial();
