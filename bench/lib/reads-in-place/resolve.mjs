/** The resolve hook of hook.mjs. */
const REPLACED = '/cloud/storage/end-of-turn.ts';
const VARIANT = new URL('./end-of-turn.ts', import.meta.url).href;

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  return resolved.url.endsWith(REPLACED) ? { ...resolved, url: VARIANT } : resolved;
}
