// A module resolve hook: `ai` and `ai/...` resolve to the package named by AI_PACKAGE (a dev
// alias such as ai-v6 = npm:ai@^6), so the adapter's own `import('ai')` loads that major.
export async function resolve(specifier, context, next) {
  const target = process.env.AI_PACKAGE;
  if (target && (specifier === 'ai' || specifier.startsWith('ai/'))) {
    return next(`${target}${specifier.slice(2)}`, context);
  }
  return next(specifier, context);
}
