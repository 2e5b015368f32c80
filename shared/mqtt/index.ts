export * from './version.ts';
export * from './schemas.ts';
export * from './topics.ts';
export * from './limits.ts';
export * from './cell-map.ts';
export * from './field.ts';
