/** Lockers with their boards and cells, and each locker's agent credentials. */
import crypto from 'node:crypto';
import type { Db } from '../../storage/database.ts';
import type { PostomatTable } from '../../storage/schema.ts';
import { newId } from '../../storage/ids.ts';
import {
  allPostomats,
  boardsOf,
  cellsOf,
  highestIncrementalId,
  insertPostomatRow,
  postomatById,
  postomatWithShortId,
  setAgentSecretHash,
  updatePostomatRow,
} from '../../storage/postomat-queries.ts';
import { cellCountsPerPostomat } from '../../storage/cell-queries.ts';
import { directoryIdOf, districtCity } from '../../storage/geo-queries.ts';
import { hashPassword, newPassword } from '../../domain/secrets.ts';
import { DomainError } from '../../domain/errors.ts';
import { addCells, type CellInput } from './cells.ts';

export { addCells, CELL_SIZES, type CellInput, type CellSize } from './cells.ts';

export interface PostomatInput {
  title: string;
  address?: string | null;
  description?: string | null;
  imgUrl?: string | null;
  lat?: number | null;
  lng?: number | null;
  schedule?: string | null;
  shortId?: string;
  cityId?: string | null;
  districtId?: string | null;
  isActive?: boolean;
}

/** A locker as the operator sees it: the agent's password hash replaced by whether there is one. */
export type PostomatView = Omit<PostomatTable, 'agentSecretHash'> & { hasAgentCredentials: boolean };

export function withoutSecret(p: PostomatTable): PostomatView {
  const { agentSecretHash, ...rest } = p;
  return { ...rest, hasAgentCredentials: agentSecretHash !== null };
}

/** A short public id for links in SMS and on stickers: 6 characters, no look-alikes. */
export function newShortId(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  return Array.from(crypto.randomBytes(6), (b) => alphabet[b % alphabet.length]).join('');
}

const refuse = (message: string) => new DomainError('NOT_ACCEPTABLE', message);

/** The city and district a locker ends up with: both must exist, and the district must lie in the city. */
async function resolvePlace(db: Db, cityId: string | null, districtId: string | null) {
  if (districtId) {
    const district = await districtCity(db, districtId);
    if (!district) throw new DomainError('NOT_FOUND', `no district ${districtId}`);
    if (cityId && district.cityId !== cityId)
      throw refuse(
        `district ${districtId} is in city ${district.cityId}, not in city ${cityId} (give a district of that city, or clear the district)`,
      );
    cityId = district.cityId;
  }
  if (cityId) {
    const city = await directoryIdOf(db, 'city', cityId);
    if (!city) throw new DomainError('NOT_FOUND', `no city ${cityId}`);
  }
  return { cityId, districtId };
}

async function checkShortIdFree(db: Db, shortId: string, exceptId?: string) {
  const other = await postomatWithShortId(db, shortId);
  if (other && other.id !== exceptId) throw refuse(`short id ${shortId} is taken by locker ${other.id}`);
}

function checkCoordinates(lat: number | null, lng: number | null) {
  if ((lat === null) !== (lng === null)) throw refuse('lat and lng go together: give both or neither');
  if (lat !== null && (lat < -90 || lat > 90)) throw refuse('lat must be -90..90');
  if (lng !== null && (lng < -180 || lng > 180)) throw refuse('lng must be -180..180');
}

export function createPostomat(db: Db, input: PostomatInput, cells: CellInput[] = [], now: Date) {
  return db.transaction().execute((trx) => insertPostomat(trx, input, cells, now));
}

/** createPostomat inside the caller's transaction (the demo seed writes everything in one). */
export async function insertPostomat(trx: Db, input: PostomatInput, cells: CellInput[] = [], now: Date) {
  const at = now.toISOString();
  const place = await resolvePlace(trx, input.cityId ?? null, input.districtId ?? null);
  checkCoordinates(input.lat ?? null, input.lng ?? null);
  const shortId = input.shortId ?? newShortId();
  await checkShortIdFree(trx, shortId);
  const highest = await highestIncrementalId(trx);
  const row = {
    id: newId(),
    incrementalid: highest + 1,
    title: input.title,
    address: input.address ?? null,
    description: input.description ?? null,
    imgUrl: input.imgUrl ?? null,
    lat: input.lat ?? null,
    lng: input.lng ?? null,
    schedule: input.schedule ?? null,
    shortId,
    isActive: input.isActive === false ? 0 : 1,
    isConnected: 0,
    cityId: place.cityId,
    districtId: place.districtId,
    agentSecretHash: null,
    createdAt: at,
    updatedAt: at,
  };
  await insertPostomatRow(trx, row);
  const created = await addCells(trx, row.id, cells, now);
  return { ...row, cells: created };
}

export async function getPostomat(db: Db, id: string): Promise<PostomatTable> {
  const row = await postomatById(db, id);
  if (!row) throw new DomainError('POSTOMAT_NOT_FOUND', `no locker ${id}`);
  return row;
}

/** Every locker, active or not, with its number of cells. */
export async function listAllPostomats(db: Db, filter: { cityId?: string } = {}) {
  const [rows, counts] = await Promise.all([allPostomats(db, filter), cellCountsPerPostomat(db)]);
  const byId = new Map(counts.map((c) => [c.postomatId, Number(c.n)]));
  return rows.map((p) => ({ ...withoutSecret(p), cellCount: byId.get(p.id) ?? 0 }));
}

/** One locker with its boards, each board with its cells (ordered by address and number). */
export async function postomatDetails(db: Db, id: string) {
  const p = await getPostomat(db, id);
  const [boards, cells] = await Promise.all([boardsOf(db, id), cellsOf(db, id)]);
  return {
    ...withoutSecret(p),
    boards: boards.map((b) => ({ ...b, cells: cells.filter((c) => c.boardId === b.id) })),
  };
}

export async function updatePostomat(db: Db, id: string, changes: Partial<PostomatInput>, now: Date) {
  const current = await getPostomat(db, id);
  const pick = <K extends keyof PostomatInput & keyof PostomatTable>(k: K) =>
    changes[k] === undefined ? current[k] : changes[k];
  // A new district without a city moves the locker to the district's city.
  const cityId = changes.cityId === undefined && changes.districtId ? null : (pick('cityId') as string | null);
  const place = await resolvePlace(db, cityId, pick('districtId') as string | null);
  checkCoordinates(pick('lat') as number | null, pick('lng') as number | null);
  if (changes.shortId !== undefined) await checkShortIdFree(db, changes.shortId, id);
  const { isActive, ...rest } = changes;
  const set = {
    ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
    ...place,
    ...(isActive === undefined ? {} : { isActive: isActive ? 1 : 0 }),
    updatedAt: now.toISOString(),
  };
  await updatePostomatRow(db, id, set);
  return withoutSecret(await getPostomat(db, id));
}

/**
 * scrypt cost of agent passwords. They are 144 random bits, not human choices: their strength
 * is their entropy, and the slow cost meant for human passwords (N=16384, ~50 ms of CPU) would
 * keep a fleet of 10,000 lockers reconnecting after a cloud restart waiting ~10 minutes on two
 * cores (bench:sync). Checks read the cost from the stored hash, so older hashes keep working.
 */
export const AGENT_SECRET_SCRYPT_N = 1024;

/** Issues new agent credentials (username = locker id); the password is shown only now. */
export async function resetAgentCredentials(db: Db, postomatId: string, now: Date) {
  const password = newPassword();
  const hash = hashPassword(password, AGENT_SECRET_SCRYPT_N);
  if (!(await setAgentSecretHash(db, postomatId, hash, now.toISOString())))
    throw new DomainError('POSTOMAT_NOT_FOUND', `no locker ${postomatId}`);
  return { username: postomatId, password };
}
