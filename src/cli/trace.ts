import dc from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import path from 'node:path';

/**
 * `--trace <file|->`: every JSON-RPC message, both ways, one line each (`→` sent, `←` received)
 * with the time since start. The transport has already redacted every Secret of the server's env.
 */
export function startTrace(target: string, toStderr: (text: string) => void): void {
  const started = performance.now();
  const file = target === '-' ? undefined : path.resolve(target);
  // Fail now, as a usage error would, rather than at the first message.
  if (file) appendFileSync(file, '');
  dc.subscribe('conduit-mcp:transport:message', (payload) => {
    const { direction, text } = payload as { direction: 'send' | 'receive'; text: string };
    const line = `[${Math.round(performance.now() - started)} ms] ${direction === 'send' ? '→' : '←'} ${text}`;
    if (file) appendFileSync(file, `${line}\n`);
    else toStderr(line);
  });
}
