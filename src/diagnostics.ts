import dc from 'node:diagnostics_channel';
import { debuglog } from 'node:util';

/**
 * Telemetry on `node:diagnostics_channel`: subscribe by name from any APM, no code change here.
 * Payloads never carry env values, args or Secrets. Publishers check `hasSubscribers` first.
 */
export const channels = {
  /** `{ server, pid, command }` once a server process runs. */
  spawn: dc.channel('conduit-mcp:transport:spawn'),
  /** `{ server, pid, code, signal }` when the process (the group leader) has exited. */
  exit: dc.channel('conduit-mcp:transport:exit'),
  /** `{ server, pid, reason }` when a transport closes, with its CloseReason. */
  close: dc.channel('conduit-mcp:transport:close'),
  /** `{ server, pid, reason, bytes }` for each line that is not JSON-RPC and was dropped. */
  junk: dc.channel('conduit-mcp:transport:junk'),
  /**
   * `{ server, pid, direction, text }` for each JSON-RPC message, `direction` `'send'` or `'receive'`,
   * `text` its JSON with every Secret of the server's env (HTTP: of its headers) redacted (the
   * CLI's `--trace`). `pid` is undefined over HTTP.
   */
  message: dc.channel('conduit-mcp:transport:message'),
  /** `{ server, pid, signal }` for each signal the shutdown sends to the server's process group. */
  signal: dc.channel('conduit-mcp:transport:signal'),
  /** `{ server, method, url, mcpMethod, status }` for each HTTP response (url: origin and path only). */
  http: dc.channel('conduit-mcp:transport:http'),
  /** `{ server, tool, reason }` for each tool left out of tools/list for an invalid x-mcp-header. */
  toolRejected: dc.channel('conduit-mcp:transport:tool-rejected'),
  /**
   * `{ server, step, detail }` for each step of era detection (`step`: `probe`, `modern`, `legacy`,
   * `retry`, `timeout`, `late-modern`, `http+sse`), `detail` a sentence saying what was seen and
   * what comes next (the CLI's `--verbose`). Never a header value or a Secret.
   */
  era: dc.channel('conduit-mcp:client:era'),
  /** `{ server, attempt, delay }` before each restart attempt. */
  reconnect: dc.channel('conduit-mcp:supervisor:reconnect'),
  /**
   * OAuth progress, `{ server, endpoint, event, step, ... }` (`endpoint`: the MCP endpoint's origin
   * and path): `request` for each HTTP exchange (step `resource_metadata`, `server_metadata`,
   * `registration`, `token`, `revocation`; method, url without query, startTime in ms since the
   * epoch, duration in ms, status or error, grantType, retry), published in the caller's async
   * context; `discovered` (resource, issuer), `registered` (issuer, how), `authorized` /
   * `refreshed` (issuer, scope), `failed` (step, error). Never a token, code, verifier, secret or key.
   */
  auth: dc.channel('conduit-mcp:auth'),
  /** `{ server, reason }` when the supervisor gives up or the client is closed. */
  clientClosed: dc.channel('conduit-mcp:client:closed'),
  /**
   * `{ server, direction, requestId, reason }` for each `notifications/cancelled`: `direction`
   * `'sent'` (the client gave up on its request: abort, timeout) or `'received'` (the server's).
   */
  cancellation: dc.channel('conduit-mcp:client:cancellation'),
  /** `{ server, warning }` (a ClientWarning) when an optional step fails and the connection goes on. */
  warning: dc.channel('conduit-mcp:client:warning'),
  /**
   * A tracing channel per request (`start`, `end`, `asyncStart`, `asyncEnd`, `error`), with
   * `{ server, method }`; `result` or `error` are added when it settles. Typed without type
   * arguments: @types/node 26 swapped their order, and the published .d.ts serves every major.
   */
  request: dc.tracingChannel('conduit-mcp:request') as dc.TracingChannel,
} as const;

/**
 * Whether anything listens on the request tracing channel. `TracingChannel.hasSubscribers` exists
 * only from Node 20.13 (and 22.0); before that it is undefined, so ask the five channels themselves.
 */
export function requestTraced(): boolean {
  const tracing = channels.request;
  return (
    tracing.hasSubscribers ??
    (tracing.start.hasSubscribers ||
      tracing.end.hasSubscribers ||
      tracing.asyncStart.hasSubscribers ||
      tracing.asyncEnd.hasSubscribers ||
      tracing.error.hasSubscribers)
  );
}

/** `NODE_DEBUG=conduit-mcp` turns this on. */
export const debug = debuglog('conduit-mcp');
