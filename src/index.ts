/**
 * `conduit-mcp`: the MCP client ({@link Client}), many servers at once ({@link ClientPool}), the
 * stdio, HTTP and in-memory transports, OAuth token stores, config files of MCP hosts, and the
 * errors every call may reject with.
 *
 * @packageDocumentation
 * @module conduit-mcp
 */

export type { StoredDPoPKey } from './auth/dpop.js';
export { type LogoutOptions, type LogoutResult, logout, type RevocableToken } from './auth/logout.js';
export type { Credential, OAuthGrant, OAuthOptions } from './auth/options.js';
export {
  FileTokenStore,
  MemoryTokenStore,
  type StoredAuth,
  type StoredClient,
  type StoredResource,
  type StoredTokens,
  type TokenStore,
} from './auth/token-store.js';
export type { ReconnectPolicy } from './client/backoff.js';
export { Client, type ClientEvents } from './client/client.js';
export type { RequestOptions } from './client/connection.js';
export type { ElicitationMode } from './client/eras/elicitation.js';
export type { ClientOptions, TransportSpec } from './client/options.js';
export type { Progress } from './client/progress.js';
export type { Root } from './client/roots.js';
export {
  type ListSkillsResult,
  type LoadedSkill,
  SKILLS_EXTENSION,
  type SkillEntry,
  type SkillFile,
  type VerifiedSkillFile,
} from './client/skills.js';
export type { ClientState, ReadyEvent, ReconnectingEvent } from './client/supervisor.js';
export type { ListTasksResult, Task, TaskStatus, TaskSupport } from './client/tasks.js';
export type { ClientWarning } from './client/warnings.js';
export type { CloseReason, CloseReasonType } from './close-reason/close-reason.js';
export type { HttpCloseReason } from './close-reason/http.js';
export type { StdioCloseReason } from './close-reason/stdio.js';
export type { ConfigTransport } from './config/entry.js';
export {
  type ConfigInput,
  type ConfigServer,
  type InputResolver,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfigFile,
  parseConfig,
} from './config/load.js';
export { channels } from './diagnostics.js';
export * from './errors.js';
export {
  findHiddenCharacters,
  findHiddenInTool,
  type HiddenCharacterKind,
  type HiddenCharacters,
  INVISIBLE_CHARACTERS,
} from './hidden-characters.js';
export { type Classified, classify, isRequestId, parseMessage } from './jsonrpc/classify.js';
/** JSON-RPC and MCP error codes, the numbers an {@link McpError}'s `code` may take. */
export * as ErrorCodes from './jsonrpc/error-codes.js';
export type * from './jsonrpc/messages.js';
export { serialize } from './jsonrpc/serialize.js';
export type { ConfigOAuthHooks, FromConfigFileOptions } from './pool/config-file.js';
export * from './pool/errors.js';
export type { ClientPoolEvents, ResolvedName, WithServer } from './pool/events.js';
export { canonicalJson, canonicalTool, FINGERPRINT_FIELDS, toolFingerprint } from './pool/fingerprint.js';
export type {
  PoolOrigin,
  PoolPrompt,
  PoolResource,
  PoolResourceTemplate,
  PoolTool,
} from './pool/namespace.js';
export type { ClientPoolOptions, PoolServerOptions, PoolTransportSpec } from './pool/options.js';
export type { PinPolicy, ToolsChangedEvent, ToolTrust } from './pool/pins.js';
export { ClientPool } from './pool/pool.js';
export type { ToolSearchMatch } from './pool/search.js';
export type { ServerState, ServerStatus } from './pool/server-status.js';
export { conduitDirectory } from './pool/state-files.js';
export {
  buildToolIndex,
  FIELD_WEIGHTS,
  type SearchableTool,
  type ToolIndex,
  type ToolMatch,
  tokenize,
} from './pool/tool-index.js';
export { checkSchema, type SchemaCheck, type SchemaError } from './protocol/json-schema.js';
export { LOG_LEVELS, type LogLevel } from './protocol/meta.js';
export type * from './protocol/results.js';
export type { SchemaValidator } from './protocol/schema-validation.js';
export type {
  ClientCapabilities,
  ClientHandlers,
  ElicitationHandler,
  HandlerContext,
  Implementation,
  RootsHandler,
  SamplingHandler,
  ServerCapabilities,
} from './protocol/types.js';
export type { Era, ProtocolMode } from './protocol/versions.js';
export { LEGACY_VERSIONS, MODERN_VERSIONS } from './protocol/versions.js';
export { isSecret, Secret, type SecretSource } from './secret.js';
export type { TelemetryOption, TelemetrySettings, TelemetryTracerProvider } from './telemetry/options.js';
export type { CustomTransportSpec } from './transport/custom/custom-kind.js';
export { HttpTransport, type HttpTransportContext } from './transport/http/http-transport.js';
export type { HeaderValue, HttpOptions } from './transport/http/options.js';
export { InMemoryTransport } from './transport/memory.js';
export type {
  EnvValue,
  ResolvedStderr,
  ResolvedStdioOptions,
  StderrOption,
  StdioOptions,
} from './transport/stdio/options.js';
export type { ExitStatus } from './transport/stdio/server-process.js';
export { StdioTransport, type StdioTransportContext } from './transport/stdio/stdio-transport.js';
export { markNotRun, type Transport, type TransportEvents, wasNotRun } from './transport/transport.js';
export { MAX_TIMER_MS } from './validate.js';
