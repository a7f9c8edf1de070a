/** One challenge of a `WWW-Authenticate` header (RFC 9110 §11.6.1): a scheme and its parameters. */
export interface AuthChallenge {
  /** Lowercase, e.g. `bearer`. */
  readonly scheme: string;
  /** Parameter names lowercase; values unquoted. */
  readonly params: Readonly<Record<string, string>>;
}

/** What a Bearer challenge (RFC 6750 §3, RFC 9728 §5.1) tells the client. */
export interface BearerChallenge {
  readonly resourceMetadata?: string;
  readonly scope?: readonly string[];
  readonly error?: string;
  readonly errorDescription?: string;
}

const TOKEN = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;

/**
 * Parses every challenge of one or more `WWW-Authenticate` values: several challenges per value,
 * quoted strings with escapes, case-insensitive schemes and parameter names, token68 skipped.
 */
export function parseChallenges(header: string | readonly string[] | undefined): AuthChallenge[] {
  if (header === undefined) return [];
  const values = typeof header === 'string' ? [header] : header;
  return values.flatMap(parseOne);
}

function parseOne(text: string): AuthChallenge[] {
  const challenges: Array<{ scheme: string; params: Record<string, string> }> = [];
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  };
  const readToken = () => {
    const start = i;
    while (i < text.length && TOKEN.test(text[i]!)) i++;
    return text.slice(start, i);
  };
  const readQuoted = () => {
    let value = '';
    i++; // opening quote
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\' && i + 1 < text.length) i++;
      value += text[i];
      i++;
    }
    i++; // closing quote
    return value;
  };
  while (i < text.length) {
    skipSpace();
    if (text[i] === ',') {
      i++;
      continue;
    }
    const token = readToken();
    if (!token) {
      i++; // a stray character: skip it rather than loop
      continue;
    }
    skipSpace();
    const current = challenges.at(-1);
    if (text[i] === '=' && current) {
      // `name=value` belongs to the challenge before; a token68 ends in '=' but is followed by , or end.
      const after = text.slice(i).match(/^=+\s*(,|$)/);
      if (after) {
        i += after[0].length - (after[1] === ',' ? 1 : 0);
        continue; // token68 credentials: nothing we use
      }
      i++;
      skipSpace();
      const value = text[i] === '"' ? readQuoted() : readToken();
      current.params[token.toLowerCase()] = value;
      continue;
    }
    challenges.push({ scheme: token.toLowerCase(), params: Object.create(null) as Record<string, string> });
  }
  return challenges;
}

/**
 * The Bearer challenge's parameters, if the header has one, else the DPoP challenge's (RFC 9449
 * §7.1: a server that takes only DPoP tokens challenges with the DPoP scheme, same parameters).
 */
export function bearerChallenge(header: string | readonly string[] | undefined): BearerChallenge | undefined {
  const challenges = parseChallenges(header);
  const bearer =
    challenges.find((challenge) => challenge.scheme === 'bearer') ??
    challenges.find((challenge) => challenge.scheme === 'dpop');
  if (!bearer) return undefined;
  const { resource_metadata, scope, error, error_description } = bearer.params;
  return {
    ...(resource_metadata ? { resourceMetadata: resource_metadata } : {}),
    ...(scope !== undefined ? { scope: splitScopes(scope) } : {}),
    ...(error ? { error } : {}),
    ...(error_description ? { errorDescription: error_description } : {}),
  };
}

export function splitScopes(scope: string | undefined): string[] {
  return scope ? scope.split(/\s+/).filter(Boolean) : [];
}

/** `a` then every scope of `b` not already in it. */
export function unionScopes(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}
