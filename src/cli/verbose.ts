import dc from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { type Client, type CloseReason, describeCloseReason } from '../index.js';
import type { Output } from './output.js';

/** `--verbose`: subscribed until the process ends, so the server's shutdown shows too. */
export function verboseLogging(client: Client, output: Output): void {
  const started = performance.now();
  const stamp = () => `[${Math.round(performance.now() - started)} ms]`;
  dc.subscribe('conduit-mcp:transport:spawn', (m) => {
    const { command, pid } = m as { command: string; pid: number };
    output.err(`${stamp()} spawned ${command} (pid ${pid})`);
  });
  dc.subscribe('conduit-mcp:transport:exit', (m) => {
    const { pid, code, signal } = m as { pid: number; code: number | null; signal: string | null };
    output.err(`${stamp()} pid ${pid} exited (${signal ? `signal ${signal}` : `status ${code}`})`);
  });
  dc.subscribe('conduit-mcp:transport:close', (m) =>
    output.err(
      `${stamp()} transport closed: ${output.policy.line(describeCloseReason((m as { reason: CloseReason }).reason))}`,
    ),
  );
  dc.subscribe('conduit-mcp:transport:junk', (m) =>
    output.err(
      `${stamp()} dropped a non-JSON-RPC line (${output.policy.line((m as { reason: string }).reason)})`,
    ),
  );
  dc.subscribe('conduit-mcp:transport:signal', (m) =>
    output.err(`${stamp()} sent ${(m as { signal: string }).signal} to the server's process group`),
  );
  dc.subscribe('conduit-mcp:client:era', (m) =>
    output.err(`${stamp()} era: ${output.policy.line((m as { detail: string }).detail)}`),
  );
  // OAuth progress: by the channel's contract, never a token, code, verifier or secret.
  dc.subscribe('conduit-mcp:auth', (m) =>
    output.err(`${stamp()} auth: ${output.policy.line(describeAuthEvent(m as AuthEvent))}`),
  );
  // The URL is origin and path only (no query), and no header is in the payload.
  dc.subscribe('conduit-mcp:transport:http', (m) => {
    const { method, url, mcpMethod, status } = m as {
      method: string;
      url: string;
      mcpMethod?: string;
      status: number;
    };
    const what = mcpMethod ? ` (${output.policy.line(mcpMethod)})` : '';
    output.err(`${stamp()} ${method} ${output.policy.line(url)}${what}: HTTP ${status}`);
  });
  client.on('ready', (event) =>
    output.err(`${stamp()} ready: ${event.era} era, protocol ${output.policy.line(event.protocolVersion)}`),
  );
  client.on('reconnecting', (event) => output.err(`${stamp()} reconnecting (attempt ${event.attempt})`));
}

interface AuthEvent {
  event: string;
  step?: string;
  method?: string;
  url?: string;
  status?: number;
  issuer?: string;
  resource?: string;
  how?: string;
  scope?: string;
  error?: string;
  message?: string;
}

function describeAuthEvent(event: AuthEvent): string {
  switch (event.event) {
    case 'request':
      return `${event.method} ${event.url} (${event.step}): ${event.status !== undefined ? `HTTP ${event.status}` : `no answer (${event.error})`}`;
    case 'discovered':
      return `${event.resource} is protected by ${event.issuer}`;
    case 'registered':
      return `client registered with ${event.issuer}${event.how ? ` (${event.how})` : ''}`;
    case 'authorized':
      return `authorized by ${event.issuer}${event.scope ? ` (scope ${event.scope})` : ''}`;
    case 'refreshed':
      return `tokens refreshed by ${event.issuer}`;
    case 'failed':
      return `failed at ${event.step}: ${event.message ?? event.error ?? 'no detail'}`;
    default:
      return event.event;
  }
}

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
