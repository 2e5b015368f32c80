/** Request schemas of the Platform API's sign-in, API-key and webhook endpoints. */
import { z } from 'zod';
import { integer, qInt } from '../http/query.ts';
import { WEBHOOK_SUBTYPES, WEBHOOK_TYPES } from '../domain/platform/enums.ts';

/** A platform record id in a path: an integer >= 1. */
export const IntIdParams = z.object({ id: qInt(integer().min(1)) });

/** Key and webhook lists: page size 1 unless asked (the spec's default). */
export const SmallPageQuery = z.object({
  page: qInt(integer().min(1)).default(1),
  pageSize: qInt(integer().min(1)).default(1),
});

export const LoginBody = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email()),
  password: z.string().min(8),
});

export const RefreshBody = z.object({ refreshToken: z.string() });

export const ApiKeyCreateBody = z.object({ title: z.string().min(1) });

const httpUrl = () => z.url({ protocol: /^https?$/ });

export const WebhookCreateBody = z.object({
  type: z.enum(WEBHOOK_TYPES),
  subtype: z.enum(WEBHOOK_SUBTYPES).nullable().optional(),
  url: httpUrl(),
  payloadTemplate: z.string().nullable().optional(),
  apiKey: z.string().nullable().optional(),
});

export const WebhookPatchBody = WebhookCreateBody.partial();
