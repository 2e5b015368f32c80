// Types of scripts/bundles.mjs (plain JavaScript, so it runs before anything TypeScript can).
export declare const ROOT: string;
export declare const PROGRAMS: { cloud: string; agent: string };
export declare function bundlePaths(entry: string, root?: string): { js: string; manifest: string };
export declare function freshness(entry: string, root?: string): 'fresh' | 'missing' | `stale: ${string}`;
export declare function build(entry: string, root?: string): Promise<{ js: string; inputs: number }>;
