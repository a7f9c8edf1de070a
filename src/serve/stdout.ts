import type { Writable } from 'node:stream';

/**
 * A view of `stream` whose writes of one event-loop turn leave together (the stream is corked at
 * the first and uncorked on the next tick): the answers to a burst of host requests cost one
 * system call instead of one each, and a lone answer waits for nothing but the current turn.
 */
export function coalescingWrites(stream: Writable): Writable {
  let corked = false;
  const uncork = () => {
    corked = false;
    stream.uncork();
  };
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') {
        return (...args: Parameters<Writable['write']>) => {
          if (!corked) {
            corked = true;
            target.cork();
            process.nextTick(uncork);
          }
          return target.write(...args);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
