import { channels, debug } from '../diagnostics.js';
import { AuthError } from '../errors.js';
import { type BearerChallenge, bearerChallenge, splitScopes, unionScopes } from './challenge.js';
import { type Discovered, defaultEndpointsFailure, discoverFor } from './discovery.js';
import { DPoPProver, proverForGrant } from './dpop.js';
import { pointEndpoint, storedForEndpoint } from './endpoint-tokens.js';
import { withEntryLock } from './entry-lock.js';
import { type IssuedTokens, refresh, refreshAt } from './grants.js';
import { type AuthContext, displayUrl, loadOAuth, type OAuth } from './http.js';
import { machineGrant } from './machine-grants.js';
import { oauthFetch } from './network-policy.js';
import type { ResolvedOAuthOptions } from './options.js';
import { authorizeReplacingRefusedClient, dropRefusedClient, isClientRefusal } from './refused-client.js';
import { type ClientIdentity, existingClient } from './registration.js';
import {
  type AuthHeaders,
  type AuthProvider,
  asksForNonce,
  attemptsExhausted,
  type ChallengeInput,
  nonceRefused,
} from './send.js';
import { type StoredTokens, tokensKey } from './token-store.js';

/** Authorizations (or step-ups) one request may cause before it fails with an AuthError. */
export const MAX_AUTH_ATTEMPTS = 3;

/**
 * OAuth 2.1 for one MCP endpoint. Knows nothing of JSON-RPC or of the transport: it is given
 * challenges and hands out header values. Concurrent challenges join one flow, and concurrent
 * requests that find the token due join one refresh.
 */
export class OAuthProvider implements AuthProvider {
  readonly #endpoint: URL;
  readonly #options: ResolvedOAuthOptions;
  readonly #context: AuthContext;
  #found: Discovered | undefined;
  #tokens: StoredTokens | undefined;
  #boundIssuer: string | undefined;
  #flow: Promise<void> | undefined;
  #refreshing: Promise<void> | undefined;
  #usingStored: Promise<void> | undefined;
  /** `issuer resource` of the StoredResource this provider last wrote or read. */
  #pointsTo: string | undefined;
  readonly #stepUps = new Map<string, number>();
  /** Signs the proofs of the DPoP-bound tokens held, if they are. */
  #prover: DPoPProver | undefined;

  constructor(
    endpoint: URL,
    options: ResolvedOAuthOptions,
    server?: string,
    hooks: { onUserWait?: (waiting: boolean) => void; signal?: AbortSignal } = {},
  ) {
    this.#endpoint = new URL(endpoint.href);
    this.#options = options;
    this.#context = {
      server,
      endpoint: displayUrl(endpoint),
      requestTimeout: options.requestTimeout,
      secrets: new Set(),
      fetch: oauthFetch(options.allowPrivateNetwork, endpoint.origin),
      allowPrivateNetwork: options.allowPrivateNetwork,
      endpointOrigin: endpoint.origin,
      ...(hooks.onUserWait ? { onUserWait: hooks.onUserWait } : {}),
      ...(hooks.signal ? { signal: hooks.signal } : {}),
    };
    this.#boundIssuer = options.issuer;
  }

  appliesTo(url: URL): boolean {
    return url.origin === this.#endpoint.origin;
  }

  /** Every token, code and client secret this provider has handled, for redaction. */
  secrets(): Iterable<string> {
    return this.#context.secrets;
  }

  async authorizationHeader(): Promise<string | undefined> {
    if (!this.#tokens && !this.#found) {
      this.#usingStored ??= this.#useStored();
      await this.#usingStored;
    }
    const renewable = this.#tokens?.refreshToken || this.#options.grant !== 'authorization_code';
    if (this.#tokens?.refreshAt !== undefined && this.#tokens.refreshAt <= Date.now() && renewable) {
      this.#refreshing ??= this.#refreshDue().finally(() => {
        this.#refreshing = undefined;
      });
      await this.#refreshing;
    }
    return this.#tokens ? authorization(this.#tokens) : undefined;
  }

  async requestHeaders(method: string, url: URL): Promise<AuthHeaders | undefined> {
    const value = await this.authorizationHeader();
    const tokens = this.#tokens;
    if (value === undefined) return undefined;
    if (!tokens?.dpopKey || tokens.tokenType !== 'DPoP') return { authorization: value };
    if (this.#prover?.stored.privateJwk.d !== tokens.dpopKey.privateJwk.d)
      this.#prover = await DPoPProver.load(tokens.dpopKey, await loadOAuth());
    const proof = await this.#prover!.proof(method, url, tokens.accessToken);
    return { authorization: value, dpop: proof };
  }

  rememberNonce(url: URL, nonce: string): void {
    this.#prover?.rememberNonce(url, nonce);
  }

  /**
   * Tokens stored for this endpoint (by an earlier client or command) go out with the first
   * request, before any discovery: a 401 for them still leads to a refresh or a new authorization.
   */
  async #useStored(): Promise<void> {
    const found = await storedForEndpoint(this.#options.store, this.#endpoint, this.#options.issuer);
    if (!found?.tokens || this.#tokens || this.#found) return;
    this.#tokens = await this.#load(found.tokensKey);
    this.#pointsTo = `${found.pointer.issuer} ${found.pointer.resource}`;
  }

  async onChallenge(input: ChallengeInput): Promise<'retry' | 'pass'> {
    const challenge = bearerChallenge(input.wwwAuthenticate);
    if (input.status === 403 && challenge?.error !== 'insufficient_scope') return 'pass';
    if (input.status !== 401 && input.status !== 403) return 'pass';
    if (input.status === 401 && asksForNonce(input.wwwAuthenticate))
      throw this.#fail(nonceRefused(this.#context.server));
    if (input.attempt >= MAX_AUTH_ATTEMPTS)
      throw this.#fail(attemptsExhausted(input, challenge, this.#context.server));
    if (this.#flow) {
      await this.#flow;
      return 'retry';
    }
    const current = this.#tokens ? authorization(this.#tokens) : undefined;
    if (current !== undefined && current !== input.sentAuthorization) return 'retry'; // already replaced
    this.#flow = this.#handle(input, challenge).finally(() => {
      this.#flow = undefined;
    });
    await this.#flow;
    return 'retry';
  }

  async #handle(input: ChallengeInput, challenge: BearerChallenge | undefined): Promise<void> {
    const oauth = await loadOAuth();
    let found: Discovered;
    try {
      found = await discoverFor(oauth, this.#endpoint, this.#found, input, challenge, this.#context);
    } catch (error) {
      throw this.#fail(error);
    }
    if (found.issuer !== this.#found?.issuer) this.#onNewAuthorizationServer(found);
    this.#found = found;
    const key = tokensKey(found.issuer, found.resource);
    const stored = await this.#load(key);
    if (input.status === 403) {
      const scopes = unionScopes(splitScopes(stored?.scope ?? this.#tokens?.scope), challenge?.scope ?? []);
      const counted = scopes.slice().sort().join(' ');
      const done = this.#stepUps.get(counted) ?? 0;
      // With the authorization that got the first token, that is MAX_AUTH_ATTEMPTS for these scopes.
      if (done >= MAX_AUTH_ATTEMPTS - 1) {
        throw this.#fail(
          new AuthError(
            'authorization',
            `already stepped up ${done} times for the scopes ${counted}; the server keeps refusing them`,
            {
              server: this.#context.server,
              status: 403,
              error: 'insufficient_scope',
            },
          ),
        );
      }
      this.#stepUps.set(counted, done + 1);
      return this.#obtain(oauth, found, key, this.#withOfflineAccess(found, scopes));
    }
    // Another client sharing the store may have got a newer token.
    if (this.#adopt(stored, stored === undefined || authorization(stored) !== input.sentAuthorization))
      return;
    const held = stored ?? this.#tokens;
    if (held?.refreshToken && held.issuer === found.issuer) {
      if (await this.#tryRefresh(oauth, found, key, held)) return;
    }
    return this.#obtain(oauth, found, key, this.#initialScopes(found, challenge));
  }

  /** A different authorization server: nothing from the old one is offered to it (SEP-2352). */
  #onNewAuthorizationServer(found: Discovered): void {
    this.#tokens = undefined;
    if (this.#options.clientId) {
      if (this.#boundIssuer !== undefined && this.#boundIssuer !== found.issuer) {
        throw this.#fail(
          new AuthError(
            'registration',
            `auth.clientId was registered with ${this.#boundIssuer}, but the server now names the authorization server ${found.issuer}; it is not offered there: register a client with ${found.issuer} and set auth.clientId${this.#options.issuer ? ' and auth.issuer' : ''}`,
            { server: this.#context.server },
          ),
        );
      }
      this.#boundIssuer = found.issuer;
    }
    this.#emit({
      event: 'discovered',
      step: 'discovery',
      issuer: found.issuer,
      resource: found.resource,
      via: found.via,
    });
  }

  #initialScopes(found: Discovered, challenge: BearerChallenge | undefined): string[] {
    const base =
      this.#options.scopes ??
      (challenge?.scope && challenge.scope.length > 0 ? challenge.scope : undefined) ??
      found.scopesSupported ??
      [];
    return this.#withOfflineAccess(found, [...base]);
  }

  /** `offline_access` only where the authorization server lists it (SEP-2207), and only for a user's consent. */
  #withOfflineAccess(found: Discovered, scopes: string[]): string[] {
    const listed =
      Array.isArray(found.as.scopes_supported) && found.as.scopes_supported.includes('offline_access');
    if (!listed || this.#options.grant !== 'authorization_code' || scopes.includes('offline_access'))
      return scopes;
    return [...scopes, 'offline_access'];
  }

  async #obtain(oauth: OAuth, found: Discovered, key: string, scopes: string[]): Promise<void> {
    let tokens: IssuedTokens;
    try {
      this.#context.dpop = await proverForGrant(oauth, found, this.#options, this.#tokens, this.#context);
      if (this.#options.grant !== 'authorization_code') {
        tokens = await machineGrant(oauth, found, this.#options, scopes, this.#context);
      } else {
        const result = await authorizeReplacingRefusedClient(
          oauth,
          found,
          this.#options,
          scopes,
          this.#context,
        );
        this.#emit({
          event: 'registered',
          step: 'registration',
          issuer: found.issuer,
          how: result.client.how,
        });
        tokens = result.tokens;
      }
    } catch (error) {
      const { clientId } = this.#options;
      if (isClientRefusal(error) && clientId && this.#options.grant !== 'authorization_code')
        throw this.#fail(await dropRefusedClient(found, this.#options, clientId, error, this.#context));
      throw this.#fail(defaultEndpointsFailure(error, found, this.#endpoint, this.#context));
    }
    await this.#save(key, found, tokens, scopes.join(' '));
    this.#emit({ event: 'authorized', step: 'token', issuer: found.issuer, scope: scopes.join(' ') });
  }

  /**
   * Refreshes once for every holder of the store entry: under the entry's lock, the entry is
   * read again, and tokens another holder got meanwhile are taken instead of refreshing (a
   * rotated refresh token used twice makes servers revoke the whole grant). False when the
   * refresh token is no longer good (a full authorization follows). What another holder just
   * stored is never deleted.
   */
  async #tryRefresh(oauth: OAuth, found: Discovered, key: string, held: StoredTokens): Promise<boolean> {
    return withEntryLock(this.#options.store, key, async () => {
      const current = await this.#load(key);
      if (this.#adopt(current, current?.accessToken !== held.accessToken)) return true;
      const using = current?.refreshToken ? current : held;
      if (!using.refreshToken) return false;
      let client: ClientIdentity | undefined;
      try {
        client = await existingClient(found, this.#options, undefined);
        if (!client) return this.#forget(key, using); // its client is gone: a new one authorizes
        // A refresh token issued with a DPoP proof is bound to that key (RFC 9449 §5).
        this.#context.dpop = using.dpopKey ? await DPoPProver.load(using.dpopKey, oauth) : undefined;
        const tokens = await refresh(oauth, found, client, this.#options, using.refreshToken, this.#context);
        await this.#save(key, found, tokens, using.scope ?? '');
        this.#emit({ event: 'refreshed', step: 'refresh', issuer: found.issuer });
        return true;
      } catch (error) {
        if (!(error instanceof AuthError) || (error.error !== 'invalid_grant' && !isClientRefusal(error)))
          throw this.#fail(error);
        this.#emit({ event: 'failed', step: 'refresh', error: error.error });
        if (isClientRefusal(error) && client) {
          const named = await dropRefusedClient(found, this.#options, client.clientId, error, this.#context);
          if (named) throw this.#fail(named);
        }
        const now = await this.#load(key);
        // Replaced meanwhile by a holder that does not lock?
        if (this.#adopt(now, now?.refreshToken !== using.refreshToken)) return true;
        return this.#forget(key, using);
      }
    });
  }

  /** Drops tokens that can no longer be refreshed, unless the store holds others by now; false. */
  async #forget(key: string, dead: StoredTokens): Promise<false> {
    const now = await this.#load(key);
    if (now && now.refreshToken === dead.refreshToken) await this.#options.store.delete(key);
    this.#tokens = undefined;
    return false;
  }

  /** The proactive refresh before a request; a refused refresh token leaves no token, so the 401 path authorizes again. */
  async #refreshDue(): Promise<void> {
    const found = this.#found;
    const held = this.#tokens;
    if (!found || !held) return;
    const key = tokensKey(found.issuer, found.resource);
    const stored = await this.#load(key);
    if (this.#adopt(stored, stored?.accessToken !== held.accessToken)) return;
    const oauth = await loadOAuth();
    // The grants without a user ask again, for the same scopes: client_credentials with the
    // client's own credentials, jwt_bearer with a fresh read of the workload's assertion.
    if (this.#options.grant !== 'authorization_code')
      return this.#obtain(oauth, found, key, splitScopes(held.scope));
    if (!held.refreshToken) return;
    await this.#tryRefresh(oauth, found, key, stored?.refreshToken ? stored : held);
  }

  /** Takes `stored` when it is not what we held (`changed`) and not due: another holder renewed it. */
  #adopt(stored: StoredTokens | undefined, changed: boolean): boolean {
    if (!stored || !changed || this.#due(stored)) return false;
    this.#tokens = stored;
    return true;
  }

  #due(tokens: StoredTokens): boolean {
    return tokens.refreshAt !== undefined && tokens.refreshAt <= Date.now();
  }

  async #load(key: string): Promise<StoredTokens | undefined> {
    const stored = await this.#options.store.get(key);
    if (stored?.kind !== 'tokens') return undefined;
    this.#context.secrets.add(stored.accessToken);
    if (stored.refreshToken) this.#context.secrets.add(stored.refreshToken);
    if (stored.dpopKey?.privateJwk.d) this.#context.secrets.add(stored.dpopKey.privateJwk.d);
    return stored;
  }

  async #save(key: string, found: Discovered, tokens: IssuedTokens, scope: string): Promise<void> {
    const stored: StoredTokens = {
      kind: 'tokens',
      issuer: found.issuer,
      accessToken: tokens.accessToken,
      tokenType: tokens.tokenType,
      // jwt_bearer renews with a fresh assertion, never a refresh token (the assertion is the credential).
      ...(tokens.refreshToken && this.#options.grant !== 'jwt_bearer'
        ? { refreshToken: tokens.refreshToken }
        : {}),
      ...(tokens.expiresIn !== undefined ? { refreshAt: refreshAt(tokens.expiresIn, Date.now()) } : {}),
      ...(scope ? { scope } : {}),
      ...(this.#context.dpop ? { dpopKey: this.#context.dpop.stored } : {}),
    };
    this.#tokens = stored;
    this.#context.dpop?.inheritNonces(this.#prover);
    this.#prover = this.#context.dpop;
    await this.#options.store.set(key, stored);
    const pointsTo = `${found.issuer} ${found.resource}`;
    if (this.#pointsTo !== pointsTo) {
      await pointEndpoint(this.#options.store, this.#endpoint, found.issuer, found.resource);
      this.#pointsTo = pointsTo;
    }
  }

  #fail(error: unknown): unknown {
    if (error instanceof AuthError)
      this.#emit({ event: 'failed', step: error.step, error: error.error, message: error.message });
    return error;
  }

  #emit(payload: Record<string, unknown>): void {
    const event = { server: this.#context.server, endpoint: this.#context.endpoint, ...payload };
    if (channels.auth.hasSubscribers) channels.auth.publish(event);
    debug('%s: auth %s %s', this.#context.server ?? 'http', payload.event, JSON.stringify(payload));
  }

  toJSON(): string {
    return `[OAuthProvider: ${this.#endpoint.origin}]`;
  }
}

/** The `Authorization` value of held tokens: `DPoP <token>` for a DPoP-bound token, else `Bearer <token>`. */
function authorization(tokens: StoredTokens): string {
  return `${tokens.tokenType === 'DPoP' && tokens.dpopKey ? 'DPoP' : 'Bearer'} ${tokens.accessToken}`;
}

export {
  type AuthHeaders,
  type AuthorizedRequest,
  type AuthProvider,
  type ChallengeableResponse,
  type ChallengeInput,
  sendWithAuthorization,
} from './send.js';
