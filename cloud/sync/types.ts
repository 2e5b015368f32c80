/** The locker link's tables live with the other tables (storage/locker-link-schema.ts); this module names them for sync/. */
export * from '../storage/locker-link-schema.ts';
