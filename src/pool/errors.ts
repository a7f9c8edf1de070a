import { ConduitError } from '../errors.js';

/**
 * A pool server cannot take the call now: it failed to start, is reconnecting, waits for
 * authorization, is disabled or closed. `cause` is its last error, if it had one.
 */
export class ServerUnavailableError extends ConduitError {
  readonly code = 'CONDUIT_SERVER_UNAVAILABLE';
  declare readonly server: string;
  /** Made by the pool for a call to a server that is not ready. */
  constructor(
    server: string,
    /** The server's state when the call came, e.g. `'failed'`, `'reconnecting'`, `'needs_auth'`. */
    readonly state: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, { ...options, server });
  }
}

/** A pool server did not become ready within its `startTimeout`; it goes on trying in the background. */
export class StartTimeoutError extends ConduitError {
  readonly code = 'CONDUIT_START_TIMEOUT';
  declare readonly server: string;
  /** Made by the pool when a server passes its `startTimeout`. */
  constructor(
    server: string,
    /** The `startTimeout` that passed, ms. */
    readonly timeout: number,
  ) {
    super(
      `not ready within ${timeout} ms (startTimeout); it keeps trying under its reconnect policy, or raise startTimeout for a slow server`,
      { server },
    );
  }
}

/** Two pool entries ended up with the same `poolName` after renaming; `servers` and `names` say which. */
export class NameCollisionError extends ConduitError {
  readonly code = 'CONDUIT_NAME_COLLISION';
  /** Made by the pool when two entries map to one pool name; `kind` is `tool`, `prompt`... */
  constructor(
    /** The pool name both entries ended up with. */
    readonly poolName: string,
    /** The two servers, in the order of `names`. */
    readonly servers: readonly [string, string],
    /** The two entries' own names on their servers. */
    readonly names: readonly [string, string],
    kind: string,
  ) {
    super(
      `the ${kind} name ${JSON.stringify(poolName)} stands for both ${servers[0]}'s ${JSON.stringify(names[0])} and ${servers[1]}'s ${JSON.stringify(names[1])}; give toolName a function that keeps them apart, or rename or disable one server`,
    );
  }
}

/** No pool server has a tool, prompt, resource or server of that name. */
export class UnknownNameError extends ConduitError {
  readonly code = 'CONDUIT_UNKNOWN_NAME';
  /** Made by the pool when a name (or URI) matches no server's entry. */
  constructor(
    /** What was looked up. */
    readonly kind: 'tool' | 'prompt' | 'resource' | 'server',
    /** The name (or resource URI) asked for. */
    readonly requested: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A pool tool is held by pinning: it changed since it was pinned (or carries hidden characters),
 * and the policy (`block`, or `reapprove` before the host approves it) keeps it from being called.
 */
export class ToolNotTrustedError extends ConduitError {
  readonly code = 'CONDUIT_TOOL_NOT_TRUSTED';
  declare readonly server: string;
  /** Made by the pool for a call of a held tool. */
  constructor(
    server: string,
    /** The tool's pool name. */
    readonly tool: string,
    /** `'blocked'` (until the pins are reset) or `'awaiting_approval'` (until `approveTool`). */
    readonly trust: 'blocked' | 'awaiting_approval',
    /** The pool's pinning policy. */
    readonly policy: string,
  ) {
    super(
      trust === 'blocked'
        ? `tool ${tool} changed since it was pinned and the pinning policy is "block": it is not called until the pins are reset (pool.resetPins())`
        : `tool ${tool} changed since it was pinned and waits for approval: call pool.approveTool(${JSON.stringify(tool)}) once the change is reviewed`,
      { server },
    );
  }
}
