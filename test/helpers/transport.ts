import type { StdioTransport } from '../../src/transport/stdio/stdio-transport.js';
import type { CloseReason } from '../../src/transport/transport.js';

let nextId = 1;

/** Sends a request straight over a transport and waits (up to `ms`) for the answer's result. */
export function requestOver(transport: StdioTransport, method: string, ms = 15_000): Promise<unknown> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no answer to ${method} within ${ms} ms`)), ms);
    const onMessage = (message: unknown) => {
      const answer = message as { id?: unknown; result?: unknown };
      if (answer.id === id) finish(undefined, answer.result);
    };
    const onClose = (reason: CloseReason) => finish(new Error(`closed before answering: ${reason.type}`));
    function finish(error: Error | undefined, result?: unknown) {
      clearTimeout(timer);
      transport.off('message', onMessage);
      transport.off('close', onClose);
      if (error) reject(error);
      else resolve(result);
    }
    transport.on('message', onMessage);
    transport.on('close', onClose);
    transport.send({ jsonrpc: '2.0', id, method, params: {} });
  });
}
