import { randomBytes } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  ProtocolError,
  type ServerContext,
} from '@modelcontextprotocol/server';

/** JSON-RPC's invalid-params code: a requestState the gateway did not mint, or no longer keeps. */
const INVALID_PARAMS = -32602;

/** A request of a server behind to the client (elicitation, sampling, roots), as the host is asked it. */
export interface InputRequest {
  /** `elicitation/create`, `sampling/createMessage` or `roots/list`. */
  readonly method: string;
  /** Its params, as the server sent them. */
  readonly params: Record<string, unknown>;
}

/** Where the requests of a server behind go while one host request is under way on it. */
export interface Asker {
  /** The host's answer to `request`. */
  ask(request: InputRequest, signal: AbortSignal): Promise<unknown>;
  /** The capabilities the host declared, if known. */
  readonly capabilities: Record<string, unknown> | undefined;
}

/** What a round of a modern host's request ends with: the work's outcome, or requests for the host. */
type RoundEnd<T> = { done: true; value: T } | { done: false; asked: Map<string, Waiting> };

interface Waiting {
  readonly request: InputRequest;
  resolve(answer: unknown): void;
  reject(error: Error): void;
}

/**
 * A host request of the modern era whose work is under way behind the gateway across rounds: each
 * time a server behind asks the client something, the round ends with an `input_required` result
 * carrying the question, and the host's retry (its `inputResponses`, and the `requestState` that
 * names this work) answers it and waits for the next end.
 */
class SuspendedWork<T> implements Asker {
  readonly capabilities: Record<string, unknown> | undefined;
  readonly controller = new AbortController();
  outcome: Promise<T> | undefined;
  #asked = new Map<string, Waiting>();
  #wake: (() => void) | undefined;
  #counter = 0;

  constructor(capabilities: Record<string, unknown> | undefined) {
    this.capabilities = capabilities;
  }

  ask(request: InputRequest, signal: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const key = `q${++this.#counter}`;
      this.#asked.set(key, { request, resolve, reject });
      signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      // Questions asked in the same turn go to the host together.
      setImmediate(() => this.#wake?.());
    });
  }

  /** Answers the questions of the last round from the host's `inputResponses`; a missing one fails. */
  answer(asked: Map<string, Waiting>, responses: Record<string, unknown> | undefined): void {
    for (const [key, waiting] of asked) {
      if (responses !== undefined && key in responses) waiting.resolve(responses[key]);
      else
        waiting.reject(
          new Error(`the host's retry carried no inputResponses.${key} (${waiting.request.method})`),
        );
    }
  }

  /** Waits until the work settles, or a server behind asks the host something. */
  async round(): Promise<RoundEnd<T>> {
    const asked = new Promise<RoundEnd<T>>((resolve) => {
      this.#wake = () => {
        if (this.#asked.size === 0) return;
        const questions = this.#asked;
        this.#asked = new Map();
        resolve({ done: false, asked: questions });
      };
      this.#wake();
    });
    try {
      return await Promise.race([this.outcome!.then((value) => ({ done: true as const, value })), asked]);
    } finally {
      this.#wake = undefined;
    }
  }
}

/** The modern hosts' work suspended between rounds, by the `requestState` that names it. */
export class InputRounds {
  readonly #suspended = new Map<string, { work: SuspendedWork<unknown>; asked: Map<string, Waiting> }>();
  readonly #expiry: number;

  /** `expiry`: ms a suspended work waits for the host's retry before it is cancelled. */
  constructor(expiry: number) {
    this.#expiry = expiry;
  }

  /** Whether `ctx` is a request of the modern era (it carries the per-request envelope). */
  static isModern(ctx: ServerContext): boolean {
    return ctx.mcpReq.envelope !== undefined;
  }

  /** The host's capabilities from a modern request's envelope. */
  static capabilities(ctx: ServerContext): Record<string, unknown> | undefined {
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    return envelope?.[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined;
  }

  /**
   * Runs one round of a modern host's request: `start` begins the work (given the asker its
   * servers' questions go to, and the signal that cancels it) unless the request is the retry of a
   * suspended one. Resolves with the work's outcome, or with the `input_required` result that asks
   * the host what the servers behind asked.
   */
  async run<T>(
    ctx: ServerContext,
    start: (asker: Asker, signal: AbortSignal) => Promise<T>,
  ): Promise<T | ReturnType<typeof inputRequired>> {
    const state = ctx.mcpReq.requestState();
    let work: SuspendedWork<T>;
    if (typeof state === 'string' && this.#suspended.has(state)) {
      const suspended = this.#suspended.get(state)!;
      this.#suspended.delete(state);
      work = suspended.work as SuspendedWork<T>;
      work.answer(suspended.asked, ctx.mcpReq.inputResponses);
    } else if (state !== undefined) {
      throw new ProtocolError(
        INVALID_PARAMS,
        "the requestState names no request under way at the gateway (it ended, expired, or is not the gateway's): send the request again without it",
      );
    } else {
      work = new SuspendedWork<T>(InputRounds.capabilities(ctx));
      work.outcome = start(work, work.controller.signal);
      work.outcome.catch(() => {});
    }
    const cancel = () => work.controller.abort(ctx.mcpReq.signal.reason);
    ctx.mcpReq.signal.addEventListener('abort', cancel, { once: true });
    let end: RoundEnd<T>;
    try {
      end = await work.round();
    } finally {
      ctx.mcpReq.signal.removeEventListener('abort', cancel);
    }
    if (end.done) return end.value;
    const token = randomBytes(18).toString('base64url');
    this.#suspended.set(token, { work: work as SuspendedWork<unknown>, asked: end.asked });
    const expire = setTimeout(() => {
      if (!this.#suspended.delete(token)) return;
      work.controller.abort(new Error(`the host did not retry within ${this.#expiry} ms`));
    }, this.#expiry);
    expire.unref();
    const inputRequests: Record<string, InputRequest> = {};
    for (const [key, { request }] of end.asked) inputRequests[key] = request;
    return inputRequired({ inputRequests: inputRequests as never, requestState: token });
  }
}
