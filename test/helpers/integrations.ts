/** Calls the Platform API's company integrations with an API key, as an integrator does. */
import type { TestApi, TestResponse } from './cloud.ts';

export type IntegrationGet = (key: string, path: string) => Promise<TestResponse>;

/** `get(key, '/client/1')` → GET /api/v1/integrations/client/1 with `x-api-token: key`. */
export const integrationGet =
  (cloud: () => TestApi): IntegrationGet =>
  (key, path) =>
    cloud().request('GET', `/api/v1/integrations${path}`, { headers: { 'x-api-token': key } });

/** The query string of repeated parameters (`statuses=A&statuses=B`) the spec uses for arrays. */
export function qs(params: Record<string, string | number | boolean | Array<string | number> | undefined>): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v])
      parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(one))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}
