import { createHash, randomBytes, webcrypto } from 'node:crypto';
import type { DPoPHandle } from 'oauth4webapi';
import { AuthError } from '../errors.js';
import type { Discovered } from './discovery.js';
import type { AuthContext, OAuth } from './http.js';
import type { ResolvedOAuthOptions } from './options.js';
import type { StoredTokens } from './token-store.js';

/**
 * A DPoP key pair (RFC 9449) as the token store keeps it, beside the tokens it binds: the store
 * guards it as it guards refresh tokens (an owner-only file for FileTokenStore).
 */
export interface StoredDPoPKey {
  /** The JWS algorithm of the proofs, e.g. `ES256`. */
  readonly alg: string;
  /** The private key as a JWK; it never leaves the store except to sign. */
  readonly privateJwk: webcrypto.JsonWebKey;
  /** The public key as a JWK, sent in every proof's header. */
  readonly publicJwk: webcrypto.JsonWebKey;
}

const RSA = { modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) };

/** The algorithms WebCrypto signs proofs with here: how to make, import and use each key. */
const ALGORITHMS: Record<
  string,
  {
    key: webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams | webcrypto.Algorithm;
    sign: webcrypto.EcdsaParams | webcrypto.RsaPssParams | webcrypto.Algorithm;
  }
> = {
  ES256: { key: { name: 'ECDSA', namedCurve: 'P-256' }, sign: { name: 'ECDSA', hash: 'SHA-256' } },
  ES384: { key: { name: 'ECDSA', namedCurve: 'P-384' }, sign: { name: 'ECDSA', hash: 'SHA-384' } },
  ES512: { key: { name: 'ECDSA', namedCurve: 'P-521' }, sign: { name: 'ECDSA', hash: 'SHA-512' } },
  EdDSA: { key: { name: 'Ed25519' }, sign: { name: 'Ed25519' } },
  PS256: { key: { name: 'RSA-PSS', hash: 'SHA-256' }, sign: { name: 'RSA-PSS', saltLength: 32 } },
  RS256: { key: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, sign: { name: 'RSASSA-PKCS1-v1_5' } },
};

/** The proof algorithms this client can sign with, ES256 first. */
export const DPOP_ALGORITHMS: readonly string[] = Object.keys(ALGORITHMS);

/**
 * The proof algorithm for an authorization server: ES256 if it lists it, else the first it lists
 * that we can do. Without a list, DPoP only when the host opted in (`auth.dpop: true`), with
 * ES256; never with `auth.dpop: false`. Opted in with a list we cannot sign with: an AuthError.
 */
export function chooseDPoPAlgorithm(
  advertised: unknown,
  option: boolean | undefined,
  issuer: string,
  server: string | undefined,
): string | undefined {
  if (option === false) return undefined;
  const listed = Array.isArray(advertised)
    ? advertised.filter((v): v is string => typeof v === 'string')
    : [];
  if (listed.length === 0) return option ? 'ES256' : undefined;
  const usable = listed.includes('ES256') ? 'ES256' : listed.find((alg) => alg in ALGORITHMS);
  if (usable || !option) return usable;
  throw new AuthError(
    'token',
    `auth.dpop is on, but ${issuer} takes DPoP proofs only in ${listed.join(', ')}; this client signs ${DPOP_ALGORITHMS.join(', ')}`,
    { server },
  );
}

/** A new key pair for `alg`, exported for the store. */
export async function generateDPoPKey(alg: string): Promise<StoredDPoPKey> {
  const { key } = ALGORITHMS[alg]!;
  const params = key.name.startsWith('RS') ? { ...key, ...RSA } : key;
  const pair = (await webcrypto.subtle.generateKey(params, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  return {
    alg,
    privateJwk: await webcrypto.subtle.exportKey('jwk', pair.privateKey),
    publicJwk: await webcrypto.subtle.exportKey('jwk', pair.publicKey),
  };
}

/**
 * Signs DPoP proofs with one key: for the token endpoint through oauth4webapi's handle, for MCP
 * requests itself (the handle signs only the requests oauth4webapi sends). Remembers the latest
 * `DPoP-Nonce` of each origin the MCP requests go to.
 */
export class DPoPProver {
  /** The key as stored. */
  readonly stored: StoredDPoPKey;
  /** oauth4webapi's handle for the token requests. */
  readonly handle: DPoPHandle;
  readonly #privateKey: webcrypto.CryptoKey;
  readonly #header: string;
  readonly #nonces = new Map<string, string>();

  private constructor(stored: StoredDPoPKey, pair: webcrypto.CryptoKeyPair, oauth: OAuth) {
    this.stored = stored;
    this.#privateKey = pair.privateKey;
    this.handle = oauth.DPoP({}, pair as unknown as Parameters<OAuth['DPoP']>[1]);
    const { kty, crv, x, y, n, e } = stored.publicJwk;
    const jwk = Object.fromEntries(
      Object.entries({ kty, crv, x, y, n, e }).filter(([, v]) => v !== undefined),
    );
    this.#header = base64url(JSON.stringify({ typ: 'dpop+jwt', alg: stored.alg, jwk }));
  }

  /** Imports a stored key; the private half becomes a non-extractable CryptoKey. */
  static async load(stored: StoredDPoPKey, oauth: OAuth): Promise<DPoPProver> {
    const algorithm = ALGORITHMS[stored.alg];
    if (!algorithm) throw new Error(`the stored DPoP key has the unknown algorithm ${stored.alg}`);
    const privateKey = await webcrypto.subtle.importKey('jwk', stored.privateJwk, algorithm.key, false, [
      'sign',
    ]);
    const publicKey = await webcrypto.subtle.importKey('jwk', stored.publicJwk, algorithm.key, true, [
      'verify',
    ]);
    return new DPoPProver(stored, { privateKey, publicKey }, oauth);
  }

  /** Takes the nonces `previous` kept (a new grant's prover replaces it). */
  inheritNonces(previous: DPoPProver | undefined): void {
    if (!previous) return;
    for (const [origin, nonce] of previous.#nonces)
      if (!this.#nonces.has(origin)) this.#nonces.set(origin, nonce);
  }

  /** Keeps `nonce` for the next proofs to `url`'s origin. */
  rememberNonce(url: URL, nonce: string): void {
    this.#nonces.set(url.origin, nonce);
  }

  /** A fresh proof for one MCP request: `htu` without query or fragment, `ath` of the token. */
  async proof(method: string, url: URL, accessToken: string): Promise<string> {
    const payload = {
      jti: randomBytes(16).toString('base64url'),
      iat: Math.floor(Date.now() / 1000),
      htm: method,
      htu: `${url.origin}${url.pathname}`,
      ath: createHash('sha256').update(accessToken, 'ascii').digest('base64url'),
      ...(this.#nonces.has(url.origin) ? { nonce: this.#nonces.get(url.origin) } : {}),
    };
    const input = `${this.#header}.${base64url(JSON.stringify(payload))}`;
    const signature = await webcrypto.subtle.sign(
      ALGORITHMS[this.stored.alg]!.sign,
      this.#privateKey,
      Buffer.from(input),
    );
    return `${input}.${Buffer.from(signature).toString('base64url')}`;
  }

  /** `[DPoPProver: ES256]`: never the key. */
  toJSON(): string {
    return `[DPoPProver: ${this.stored.alg}]`;
  }
}

/**
 * The proofs of a new grant: with the key the tokens `held` are bound to (a new token keeps the
 * binding), else a new key pair; none when the server and `auth.dpop` do not call for DPoP.
 */
export async function proverForGrant(
  oauth: OAuth,
  found: Discovered,
  options: ResolvedOAuthOptions,
  held: StoredTokens | undefined,
  context: AuthContext,
): Promise<DPoPProver | undefined> {
  const advertised = found.as.dpop_signing_alg_values_supported;
  const alg = chooseDPoPAlgorithm(advertised, options.dpop, found.issuer, context.server);
  if (!alg) return undefined;
  const key = held?.dpopKey?.alg === alg ? held.dpopKey : await generateDPoPKey(alg);
  if (key.privateJwk.d) context.secrets.add(key.privateJwk.d);
  return DPoPProver.load(key, oauth);
}

function base64url(text: string): string {
  return Buffer.from(text).toString('base64url');
}
