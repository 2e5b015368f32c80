export * from './constants.ts';
export * from './frame.ts';
export * from './parser.ts';
