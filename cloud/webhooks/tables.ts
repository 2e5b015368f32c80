/** The webhook subscription tables live with the other tables (storage/webhook-schema.ts). */
export * from '../storage/webhook-schema.ts';
