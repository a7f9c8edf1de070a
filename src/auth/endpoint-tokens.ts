import { canonicalResource } from './discovery.js';
import {
  resourceKey,
  type StoredResource,
  type StoredTokens,
  type TokenStore,
  tokensKey,
} from './token-store.js';

/** What a store holds for one MCP endpoint: where its tokens came from, and the tokens. */
export interface EndpointTokens {
  readonly pointer: StoredResource;
  readonly tokensKey: string;
  readonly tokens: StoredTokens | undefined;
}

/**
 * The tokens stored for `endpoint` by whichever client last authorized it, found through its
 * StoredResource entry, without any request; undefined when nothing is stored (or, with
 * `issuer`, when they came from another authorization server).
 */
export async function storedForEndpoint(
  store: TokenStore,
  endpoint: URL,
  issuer?: string,
): Promise<EndpointTokens | undefined> {
  const pointer = await store.get(resourceKey(canonicalResource(endpoint)));
  if (pointer?.kind !== 'resource') return undefined;
  if (issuer !== undefined && pointer.issuer !== issuer) return undefined;
  const key = tokensKey(pointer.issuer, pointer.resource);
  const stored = await store.get(key);
  const tokens = stored?.kind === 'tokens' && stored.issuer === pointer.issuer ? stored : undefined;
  return { pointer, tokensKey: key, tokens };
}

/** Records which authorization server and resource `endpoint`'s tokens are kept under. */
export function pointEndpoint(
  store: TokenStore,
  endpoint: URL,
  issuer: string,
  resource: string,
): Promise<void> {
  return store.set(resourceKey(canonicalResource(endpoint)), { kind: 'resource', issuer, resource });
}
