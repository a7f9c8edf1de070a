import { createPrivateKey, webcrypto } from 'node:crypto';
import { AuthError } from '../errors.js';
import { exposeSecret, type Secret } from '../secret.js';
import type { AuthContext } from './http.js';

type ImportParams = Parameters<typeof webcrypto.subtle.importKey>[2];

const ALGORITHMS: Record<string, ImportParams> = {
  RS256: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  RS384: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-384' },
  RS512: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-512' },
  PS256: { name: 'RSA-PSS', hash: 'SHA-256' },
  PS384: { name: 'RSA-PSS', hash: 'SHA-384' },
  PS512: { name: 'RSA-PSS', hash: 'SHA-512' },
  ES256: { name: 'ECDSA', namedCurve: 'P-256' },
  ES384: { name: 'ECDSA', namedCurve: 'P-384' },
  ES512: { name: 'ECDSA', namedCurve: 'P-521' },
  EdDSA: { name: 'Ed25519' },
};

/** A key's algorithm when none is given: by its type, and for EC keys by its curve. */
const NATURAL: Record<string, string> = { rsa: 'RS256', 'rsa-pss': 'PS256', ed25519: 'EdDSA' };
const CURVES: Record<string, string> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

/**
 * A PEM private key (held in a Secret) as a non-extractable WebCrypto signing key for
 * `private_key_jwt`. The algorithm is the one given, else the key's natural one. Errors never
 * quote the key.
 */
export async function importSigningKey(
  privateKey: Secret,
  algorithm: string | undefined,
  context: AuthContext,
): Promise<webcrypto.CryptoKey> {
  const pem = await exposeSecret(privateKey);
  let keyObject: ReturnType<typeof createPrivateKey>;
  try {
    keyObject = createPrivateKey(pem);
  } catch {
    throw new AuthError(
      'token',
      'auth.privateKey is not a PEM private key Node can read (PKCS#8, PKCS#1 or SEC1)',
      {
        server: context.server,
      },
    );
  }
  const type = keyObject.asymmetricKeyType;
  const natural =
    type === 'ec' ? CURVES[String(keyObject.asymmetricKeyDetails?.namedCurve)] : NATURAL[String(type)];
  const alg = algorithm ?? natural;
  const params = alg ? ALGORITHMS[alg] : undefined;
  if (!alg || !params) {
    throw new AuthError(
      'token',
      `auth.privateKey is a ${type ?? 'unknown'} key; set auth.signingAlgorithm to one of ${Object.keys(ALGORITHMS).join(', ')} that fits it`,
      { server: context.server },
    );
  }
  try {
    return await webcrypto.subtle.importKey('jwk', keyObject.export({ format: 'jwk' }), params, false, [
      'sign',
    ]);
  } catch {
    throw new AuthError(
      'token',
      `auth.privateKey (a ${type} key) cannot sign with ${alg}; set auth.signingAlgorithm to fit the key`,
      {
        server: context.server,
      },
    );
  }
}
