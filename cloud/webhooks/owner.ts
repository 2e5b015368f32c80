/** The owner of webhook rows is a storage matter (storage/webhook-owner.ts): its queries keep to one owner's rows. */
export * from '../storage/webhook-owner.ts';
