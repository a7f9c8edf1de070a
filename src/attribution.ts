import { isConduitError } from './errors.js';

/**
 * Names `server` on an error of this library that reaches the user without it (one raised in a
 * layer that does not know the server's name), where errors leave a Client or a pool member.
 * The message is left as it is. Returns the error.
 */
export function attributeTo<T>(error: T, server: string): T {
  if (isConduitError(error) && error.server === undefined) {
    Object.defineProperty(error, 'server', { value: server, enumerable: true, configurable: true });
  }
  return error;
}
