/**
 * Icons a server lists (2025-11-25 and later: `icons` on serverInfo, tools, prompts, resources and
 * resource templates) are shown by the host, so they are screened here (2026-07-28 §Icons, the
 * HTTP digest's item 60): only `https:` URLs and `data:image/...` stay. `javascript:`, `file:`,
 * `http:`, `ftp:`, `ws:` and application schemes are dropped, and so is anything that does not
 * parse. Hosts fetch what remains without credentials and without following redirects (README).
 */
export function isSafeIconSource(src: unknown): boolean {
  if (typeof src !== 'string' || !URL.canParse(src)) return false;
  const url = new URL(src);
  if (url.protocol === 'https:') return !url.username && !url.password;
  return url.protocol === 'data:' && /^image\/[a-z0-9.+-]+[;,]/i.test(url.pathname);
}

/** The item with its unsafe icons removed (the same object when nothing was removed); counts them in `dropped`. */
export function screenIcons<T>(item: T, dropped: { count: number }): T {
  const icons = (item as { icons?: unknown } | null)?.icons;
  if (!Array.isArray(icons)) return item;
  const kept = icons.filter((icon) => isSafeIconSource((icon as { src?: unknown } | null)?.src));
  if (kept.length === icons.length) return item;
  dropped.count += icons.length - kept.length;
  return { ...item, icons: kept };
}
