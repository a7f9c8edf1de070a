import type { JsonObject } from '../../jsonrpc/messages.js';
import type { LogLevel } from '../../protocol/meta.js';
import type { SchemaValidator } from '../../protocol/schema-validation.js';
import type {
  ClientCapabilities,
  ClientHandlers,
  Implementation,
  ServerCapabilities,
} from '../../protocol/types.js';
import type { Era } from '../../protocol/versions.js';
import type { InternalRequestOptions } from '../connection.js';
import type { WarningSink } from '../warnings.js';
import type { ElicitationMode } from './elicitation.js';
import type { InputRoundLimits } from './input-requests.js';

/** What every session needs from the client. */
export interface SessionContext {
  readonly name: string;
  readonly clientInfo: Implementation;
  readonly handlers: ClientHandlers;
  readonly capabilities: ClientCapabilities;
  readonly requestTimeout: number;
  /** Elicitation modes declared (with handlers.elicitation). @defaultValue ['form'] */
  readonly elicitationModes?: readonly ElicitationMode[];
  /** Whether sampling.tools is declared. @defaultValue false */
  readonly samplingTools?: boolean;
  /** Validates answers and results against schemas. @defaultValue defaultSchemaValidator */
  readonly validateSchema?: SchemaValidator;
  /** The log level wanted now (it can change at run time). */
  logLevel(): LogLevel | undefined;
  /** Reports an optional step that failed without failing the connection. */
  readonly warn: WarningSink;
}

/** What the client remembers about a server configuration between its processes. */
export interface EraMemory {
  era: Era;
  version: string;
}

/**
 * How change notifications reach the client. `'unsolicited'` (legacy): list_changed arrives on
 * its own and resources are watched with `resources/subscribe`. `'listen'` (modern): only on a
 * `subscriptions/listen` stream, each notification tagged with the stream's subscription id.
 */
export type ChangeNotifications = 'unsolicited' | 'listen';

/** What a request means in one era, over one connection. Nothing above asks which class it is. */
export interface Session {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly serverInfo: Implementation | undefined;
  readonly serverCapabilities: ServerCapabilities;
  readonly instructions: string | undefined;
  /** How change notifications are watched in this era. */
  readonly changeNotifications: ChangeNotifications;
  /** What to remember about the server for its next process (era memory). */
  readonly memory: EraMemory;
  request(method: string, params?: JsonObject, options?: InternalRequestOptions): Promise<unknown>;
  notify(method: string, params?: JsonObject): void;
  /** Stops waiting for one of our requests locally, writing nothing; a late answer is dropped. */
  abandon(id: string | number, error: Error): void;
  /** Whether results of `method` may be served from a cache in this era. */
  isCacheable(method: string): boolean;
  /** Whether this result of `request()` may be cached (not one obtained through input rounds). */
  mayCache(result: unknown): boolean;
  /**
   * Applies a new log level (legacy: `logging/setLevel`, rejecting if the server refuses it;
   * modern: sent with each request). A server without `logging`: a warning, nothing sent.
   */
  applyLogLevel(level: LogLevel, options?: InternalRequestOptions): Promise<void>;
  /**
   * Modern era only: answers the `inputRequests` of a task (the tasks extension) with the user's
   * handlers; resolves with the `inputResponses` for `tasks/update`.
   */
  answerInputs?(requests: unknown, limits: InputRoundLimits): Promise<JsonObject | undefined>;
  /** Stops handlers still answering the server. */
  dispose(): void;
}
