import type { TokenStore } from '../auth/token-store.js';
import type { ClientOptions } from '../client/options.js';
import type { ConfigTransport } from '../config/entry.js';
import type { ConfigServer, LoadConfigOptions } from '../config/load.js';
import { durationOption } from '../validate.js';
import type { MemberSetup, MemberShared } from './member.js';
import { type ClientPoolOptions, defaultStartTimeout, type ResolvedPoolOptions } from './options.js';

/** Options of `ClientPool.fromConfigFile`: the pool's, the loader's, and Client options for every server. */
export interface FromConfigFileOptions extends Omit<ClientPoolOptions, 'servers'>, LoadConfigOptions {
  /** Client options given to every server of the file (reconnect, requestTimeout, handlers...). */
  readonly client?: Omit<ClientOptions, 'name' | 'transport'>;
  /** What a file cannot hold, for every HTTP entry with an `oauth` object. */
  readonly oauth?: ConfigOAuthHooks;
}

/** The host's part of OAuth for a config file's HTTP entries. */
export interface ConfigOAuthHooks {
  /** Shows the user the authorization URL for `server` (see OAuthOptions.onAuthorizationUrl). */
  readonly onAuthorizationUrl?: (
    url: URL,
    server: string,
  ) => Promise<string | URL | undefined> | Promise<void>;
  /**
   * Where tokens are kept for entries without their own `tokenStore` file: one store for all of
   * them, or a function giving each server its own (called with the server's name and URL).
   * @defaultValue one in-memory store per server
   */
  readonly store?: TokenStore | ((server: string, url: string) => TokenStore);
}

/**
 * A config file entry's member: the file's Client options for every server, the entry's transport
 * (asked for when it starts if it needs an input of the host's), and the host's OAuth hooks.
 */
export function configMemberSetup(
  entry: ConfigServer,
  shared: MemberShared,
  pool: ResolvedPoolOptions,
  client: Omit<ClientOptions, 'name' | 'transport'>,
  oauth: ConfigOAuthHooks | undefined,
): MemberSetup {
  const withTransport = (transport: ConfigTransport): ClientOptions =>
    ({
      ...client,
      name: entry.name,
      transport: withOAuthHooks(transport, entry.name, oauth),
    }) as unknown as ClientOptions;
  const known = entry.resolved;
  return {
    shared,
    name: entry.name,
    prepare: async () => withTransport(await entry.transport()),
    options: known ? withTransport(known) : undefined,
    error: entry.error,
    disabled: entry.disabled,
    lazy: entry.lazy ?? pool.lazy,
    startTimeout: durationOption(
      defaultStartTimeout(pool, client.connectTimeout),
      'client.connectTimeout',
      1,
    ),
    url: known?.type === 'http' ? known.url : undefined,
  };
}

/** An HTTP entry's OAuth options with the host's callback (told which server asks) and store. */
function withOAuthHooks(
  transport: ConfigTransport,
  server: string,
  hooks: ConfigOAuthHooks | undefined,
): ConfigTransport {
  if (transport.type !== 'http' || transport.auth === undefined || hooks === undefined) return transport;
  const { onAuthorizationUrl } = hooks;
  // A tokenStore file of the entry's own wins; a function is not asked for a store it would lose to.
  const given = hooks.store;
  const store =
    transport.auth.store !== undefined
      ? undefined
      : typeof given === 'function'
        ? given(server, transport.url)
        : given;
  return {
    ...transport,
    auth: {
      ...(store ? { store } : {}),
      ...transport.auth,
      ...(onAuthorizationUrl ? { onAuthorizationUrl: (url: URL) => onAuthorizationUrl(url, server) } : {}),
    },
  };
}
