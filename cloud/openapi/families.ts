/**
 * Which API family a path belongs to, and what that decides in the document: its security
 * scheme, its authentication errors, whether it is rate limited, and how a curl sample
 * authenticates (with the variables `npm start` prints).
 */
import type { AUTH_ROWS } from './errors.ts';

export type FamilyName =
  | 'locker'
  | 'lockerPublic'
  | 'signIn'
  | 'user'
  | 'integration'
  | 'market'
  | 'platformPublic'
  | 'sandbox'
  | 'agent'
  | 'service';

interface Family {
  auth: keyof typeof AUTH_ROWS;
  security: Array<Record<string, string[]>>;
  rateLimited: boolean;
  sampleAuth: string;
}

const integrationSecurity: Array<Record<string, string[]>> = [{ PlatformApiToken: [] }, { PlatformApiKeyBearer: [] }];

export const FAMILIES: Record<FamilyName, Family> = {
  locker: {
    auth: 'locker',
    security: [{ LockerApiKey: [] }],
    rateLimited: true,
    sampleAuth: '-H "Authorization: Bearer $KEY"',
  },
  lockerPublic: { auth: 'none', security: [], rateLimited: true, sampleAuth: '' },
  signIn: { auth: 'none', security: [], rateLimited: true, sampleAuth: '' },
  user: {
    auth: 'user',
    security: [{ UserJwt: [] }],
    rateLimited: true,
    sampleAuth: '-H "Authorization: Bearer $TOKEN"',
  },
  integration: {
    auth: 'integration',
    security: integrationSecurity,
    rateLimited: true,
    sampleAuth: '-H "x-api-token: $PKEY"',
  },
  // The marketplace and the platform's locker access: the demo's marketplace key (MKEY) has locker access.
  market: {
    auth: 'integration',
    security: integrationSecurity,
    rateLimited: true,
    sampleAuth: '-H "x-api-token: $MKEY"',
  },
  platformPublic: { auth: 'none', security: [], rateLimited: true, sampleAuth: '' },
  // A Locker API company, or a marketplace acting as its locker company (docs/sandbox.md).
  sandbox: {
    auth: 'sandbox',
    security: [{ LockerApiKey: [] }, { PlatformApiToken: [] }],
    rateLimited: true,
    sampleAuth: '-H "Authorization: Bearer $KEY"',
  },
  // Locker boards enrolling: no credentials yet, limited per client address.
  agent: { auth: 'none', security: [], rateLimited: true, sampleAuth: '' },
  service: { auth: 'none', security: [], rateLimited: false, sampleAuth: '' },
};

export function familyOf(path: string): FamilyName {
  if (path.startsWith('/api/v1/integration/company/')) return 'locker';
  if (path.startsWith('/api/v1/sandbox/')) return 'sandbox';
  if (path.startsWith('/api/v1/agent/')) return 'agent';
  if (path.startsWith('/api/v1/open-api/') || path.startsWith('/api/v1/public/postomat/')) return 'lockerPublic';
  if (path.startsWith('/api/v1/auth/')) return 'signIn';
  if (path.startsWith('/api/v1/logistic-company/')) return 'user';
  if (path.startsWith('/api/v1/integrations/market-company/') || path.startsWith('/api/v1/integrations/postomat/'))
    return 'market';
  if (path.startsWith('/api/v1/integrations/')) return 'integration';
  if (path.startsWith('/api/v1/public/')) return 'platformPublic';
  return 'service';
}

export const SECURITY_SCHEMES = {
  LockerApiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'Locker API: `Authorization: Bearer <API_KEY>` (the company key the operator issues; `npm start` prints the demo keys). Missing or wrong: 401 `Unauthorized`.',
  },
  PlatformApiToken: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-token',
    description:
      'Platform integrations: a company API key (from `/api/v1/logistic-company/api-key/create`). No key: 403 TOKEN_NOT_VALID; unknown key: 401 UNAUTHORIZED.',
  },
  PlatformApiKeyBearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'The same company API key in `Authorization: Bearer`, accepted when `x-api-token` is absent.',
  },
  UserJwt: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A user access token from `/api/v1/auth/login` (1 hour; refresh with `/api/v1/auth/refresh`). API-key and webhook management need a company administrator.',
  },
};
