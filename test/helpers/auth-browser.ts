// A user at a browser, over plain HTTP: opens the authorization URL, signs in on the
// authorization server's login form, approves its consent form, and lands on the redirect URI.
// Cookies are kept as a browser keeps them; forms are read from the HTML the server sent.

/** What the user saw and did, for tests that assert on it. */
export interface BrowserVisit {
  /** Every form the user submitted, by its `prompt` field (`login`, `consent`). */
  readonly submitted: string[];
  /** Where the authorization server finally sent the user (the redirect URI with code or error). */
  landed: string | undefined;
}

const MAX_STEPS = 20;

function formOf(html: string, base: string): { action: URL; fields: URLSearchParams } | undefined {
  const form = /<form\b[^>]*\baction="([^"]+)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) return undefined;
  const fields = new URLSearchParams();
  for (const input of form[2]!.matchAll(/<input\b[^>]*>/gi)) {
    const name = /\bname="([^"]*)"/.exec(input[0])?.[1];
    if (!name) continue;
    fields.set(name, /\bvalue="([^"]*)"/.exec(input[0])?.[1] ?? '');
  }
  return { action: new URL(form[1]!.replace(/&amp;/g, '&'), base), fields };
}

/**
 * Signs in as `account` and consents. With `deliver`, the final redirect is fetched (the
 * loopback listener gets it) and undefined is returned; otherwise its URL is returned.
 */
export async function consent(
  url: URL,
  options: { account?: string; deliver?: boolean; visit?: BrowserVisit } = {},
): Promise<string | undefined> {
  const redirectUri = url.searchParams.get('redirect_uri') ?? '';
  const cookies = new Map<string, string>();
  let next: { url: URL; method: string; body?: URLSearchParams } = { url, method: 'GET' };
  for (let step = 0; step < MAX_STEPS; step++) {
    if (redirectUri && next.url.href.startsWith(redirectUri)) {
      if (options.visit) options.visit.landed = next.url.href;
      if (!options.deliver) return next.url.href;
      const delivered = await fetch(next.url);
      await delivered.text();
      return undefined;
    }
    const response = await fetch(next.url, {
      method: next.method,
      redirect: 'manual',
      headers: {
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(next.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(next.body ? { body: next.body.toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1));
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      next = { url: new URL(location, next.url), method: 'GET' };
      continue;
    }
    const html = await response.text();
    const form = response.ok ? formOf(html, next.url.href) : undefined;
    if (!form) {
      throw new Error(
        `the authorization server answered ${response.status} with no form: ${html.slice(0, 300)}`,
      );
    }
    if (form.fields.has('login')) {
      form.fields.set('login', options.account ?? 'alice');
      form.fields.set('password', 'any password');
    }
    options.visit?.submitted.push(form.fields.get('prompt') ?? '?');
    next = { url: form.action, method: 'POST', body: form.fields };
  }
  throw new Error(`no redirect back to ${redirectUri} after ${MAX_STEPS} steps`);
}

/** An `onAuthorizationUrl` for the built-in loopback listener: the user consents; nothing is returned. */
export function browser(visit?: BrowserVisit): (url: URL) => Promise<undefined> {
  return async (url) => {
    await consent(url, { deliver: true, ...(visit ? { visit } : {}) });
    return undefined;
  };
}
