import type { JsonObject } from '../../jsonrpc/messages.js';
import type { LogLevel } from '../../protocol/meta.js';
import type {
  ClientCapabilities,
  ClientHandlers,
  Implementation,
  ServerCapabilities,
} from '../../protocol/types.js';
import type { Era } from '../../protocol/versions.js';
import type { RequestOptions } from '../connection.js';

/** What every session needs from the client. */
export interface SessionContext {
  readonly name: string;
  readonly clientInfo: Implementation;
  readonly handlers: ClientHandlers;
  readonly capabilities: ClientCapabilities;
  readonly requestTimeout: number;
  /** The log level wanted now (it can change at run time). */
  logLevel(): LogLevel | undefined;
}

/** What a request means in one era, over one connection. */
export interface Session {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly serverInfo: Implementation | undefined;
  readonly serverCapabilities: ServerCapabilities;
  readonly instructions: string | undefined;
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<unknown>;
  notify(method: string, params?: JsonObject): void;
  /** Applies a new log level (legacy: `logging/setLevel`; modern: sent with each request). */
  applyLogLevel(level: LogLevel): Promise<void>;
  /** Stops handlers still answering the server. */
  dispose(): void;
}
