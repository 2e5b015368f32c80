import type { Request } from 'express';

/** The token of `Authorization: Bearer <token>`, '' for an empty one, undefined without the scheme. */
export function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const m = /^Bearer(?:\s+(.*))?$/i.exec(header.trim());
  return m ? (m[1] ?? '').trim() : undefined;
}
