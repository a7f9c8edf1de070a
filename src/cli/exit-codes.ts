import {
  AuthError,
  CapabilityError,
  ClientClosedError,
  type CloseReason,
  ConfigError,
  ConnectionClosedError,
  HttpError,
  McpError,
  ProtocolError,
  RequestTimeoutError,
  SpawnError,
  UnsupportedProtocolVersionError,
} from '../index.js';
import { inCommandWords, type MessageContext, withoutRepeatedCode } from './messages.js';
import type { TextPolicy } from './sanitize.js';
import { HELP_HINT } from './usage.js';

/** One code per outcome; the README and --help list them. */
export const EXIT = {
  ok: 0,
  serverError: 1,
  usage: 2,
  serverDown: 3,
  timeout: 4,
  unsupported: 5,
  protocol: 6,
  outputClosed: 141,
} as const;

const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** The run was stopped by a signal: exit 128 + its number, as shells report it. */
export class Interrupted extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`stopped by ${signal}`);
  }
  get exitCode(): number {
    return 128 + (SIGNAL_NUMBERS[this.signal] ?? 0);
  }
}

/** stdout was closed by its reader (`| head`): stop quietly. */
export class OutputClosed extends Error {
  constructor() {
    super('stdout was closed');
  }
}

/** A mistake in how the command was called: one line on stderr, exit code 2. */
export class UsageProblem extends Error {}

/** Tool arguments that do not match the tool's input schema (exit code 2; --help would not help). */
export class InvalidArguments extends UsageProblem {}

/** The CLI's own deadline (--connect-timeout) passed. */
export class CliTimeout extends Error {}

/** The server does not offer what the command needs (an era, a capability). */
export class Unsupported extends Error {}

export function exitCodeFor(error: unknown): number {
  if (error instanceof Interrupted) return error.exitCode;
  if (error instanceof OutputClosed) return EXIT.outputClosed;
  if (error instanceof UsageProblem || error instanceof ConfigError) return EXIT.usage;
  if (error instanceof CliTimeout || error instanceof RequestTimeoutError) return EXIT.timeout;
  if (
    error instanceof Unsupported ||
    error instanceof CapabilityError ||
    error instanceof UnsupportedProtocolVersionError
  ) {
    return EXIT.unsupported;
  }
  if (error instanceof HttpError) return httpExitCode(error);
  if (error instanceof ProtocolError) return EXIT.protocol;
  if (
    error instanceof SpawnError ||
    error instanceof ConnectionClosedError ||
    error instanceof ClientClosedError
  ) {
    return EXIT.serverDown;
  }
  return EXIT.serverError;
}

/**
 * An HTTP failure, by what it means to the user: an error status is the server's answer (1), a
 * connection that failed or broke is a server out of reach (3), a stall a timeout (4), a body
 * that is not MCP a broken protocol (6).
 */
function httpExitCode(error: HttpError): number {
  switch (error.kind) {
    case 'status':
      return EXIT.serverError;
    case 'timeout':
      return EXIT.timeout;
    case 'content_type':
    case 'invalid_body':
      return EXIT.protocol;
    default:
      return EXIT.serverDown;
  }
}

/** The close reason behind an error, if any: on the error, or down its cause chain. */
function closeReasonOf(error: unknown): CloseReason | undefined {
  for (let current = error, depth = 0; current && depth < 10; depth++) {
    const reason = (current as { reason?: unknown }).reason;
    if (reason && typeof reason === 'object' && 'type' in reason) return reason as CloseReason;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The command's own errors (usage, a stop, its deadlines), in its words already, with their --json codes. */
const OWN_ERRORS = [
  [InvalidArguments, 'CONDUIT_INVALID_ARGUMENTS'],
  [UsageProblem, 'CONDUIT_USAGE'],
  [Interrupted, 'CONDUIT_INTERRUPTED'],
  [CliTimeout, 'CONDUIT_CONNECT_TIMEOUT'],
  [Unsupported, 'CONDUIT_UNSUPPORTED'],
] as const;

function ownCode(error: unknown): string | undefined {
  return OWN_ERRORS.find(([type]) => error instanceof type)?.[1];
}

const TAIL_LINES = 20;

/**
 * What failed and what to do, for stderr: no stack trace; the server's words made visible; the
 * library's words put in the command's (`context`: the server the command line names).
 */
export function describeFailure(error: unknown, policy: TextPolicy, context?: MessageContext): string {
  let message: string;
  if (error instanceof InvalidArguments) return error.message;
  if (error instanceof UsageProblem) return `${error.message}\n${HELP_HINT}`;
  const words = (text: string) =>
    context && ownCode(error) === undefined ? inCommandWords(text, context) : text;
  if (error instanceof McpError) {
    message = `the server answered error ${error.code}: ${policy.line(withoutRepeatedCode(words(error.message), error.code))}`;
  } else if (error instanceof RequestTimeoutError) {
    message = error.message.endsWith('(maxTotalTimeout)')
      ? `${policy.line(error.message.replace(/ \(maxTotalTimeout\)$/, ''))}: --max-time, the hard cap per request, passed; raise it if the tool needs longer`
      : `${policy.line(error.message)}, nor any progress: raise --timeout (per request, restarted by each progress notification)`;
  } else if (error instanceof AuthError && error.step === 'discovery' && error.status === 401) {
    // A server without OAuth metadata: the credential it wants goes in --header, in the command.
    message = `${policy.line(error.message.replace(/; give it with .*$/, ''))}; give it with --header 'Authorization: Bearer ...'`;
  } else if (error instanceof CapabilityError) {
    message = `${policy.line(error.message)} (conduit-mcp inspect shows what the server offers)`;
  } else if (error instanceof Error) {
    message = policy.line(words(error.message));
  } else {
    message = policy.line(String(error));
  }
  // The end of the server's stderr, when it explains the failure.
  const tail = (closeReasonOf(error) as { stderrTail?: string } | undefined)?.stderrTail;
  if (tail !== undefined) {
    const lines = tail.trimEnd().split('\n').slice(-TAIL_LINES);
    message += `\nthe server's stderr ended with:\n${lines.map((line) => `  | ${policy.line(line)}`).join('\n')}`;
  }
  return message;
}

/** `{ "error": { code, message, exitCode, ... } }` for --json. */
export function jsonFailure(error: unknown, exitCode: number, context?: MessageContext): unknown {
  const code = ownCode(error) ?? (error as { code?: unknown })?.code ?? 'CONDUIT_ERROR';
  const body: Record<string, unknown> = {
    code,
    message:
      error instanceof Error && ownCode(error) === undefined && context
        ? inCommandWords(error.message, context)
        : error instanceof Error
          ? error.message
          : String(error),
    exitCode,
  };
  if (error instanceof McpError && error.data !== undefined) body.data = error.data;
  const reason = closeReasonOf(error);
  if (reason)
    body.closeReason = {
      ...reason,
      ...('error' in reason && reason.error ? { error: reason.error.message } : {}),
    };
  return { error: body };
}
