import { CapabilityError } from '../errors.js';
import type { JsonRpcNotification } from '../jsonrpc/messages.js';
import type { SchemaValidator } from '../protocol/schema-validation.js';
import { missingCapability } from './capabilities.js';
import type { RequestOptions } from './connection.js';
import type { Session } from './eras/session.js';
import { Listed } from './listed.js';
import { routeNotification } from './notification-router.js';
import { normalizeRequestOptions } from './request-options.js';
import type { RequestPipeline } from './request-pipeline.js';
import { Subscriptions } from './subscriptions.js';
import { TaskCalls } from './task-calls.js';
import type { Task } from './tasks.js';
import type { WarningSink } from './warnings.js';

/**
 * What a Client keeps of its latest session: the session (its era, version and server info stay
 * readable after it ends), what a new session clears (the result cache, what was listed, the
 * tasks), and the resource subscriptions, made on first use and carried to each new session.
 */
export class LatestSession {
  session: Session | undefined;
  /** What this session listed: output schemas, prompt arguments, the tools that take tasks. */
  readonly listed: Listed;
  readonly tasks: TaskCalls;
  #subscriptions: Subscriptions | undefined;

  constructor(
    readonly parts: {
      name: string;
      requestTimeout: number;
      validateSchema: SchemaValidator;
      warn: WarningSink;
      requests: RequestPipeline;
      listTools: (options?: RequestOptions) => Promise<unknown>;
      currentSession: () => Session | undefined;
      taskStatus: (task: Task) => void;
    },
  ) {
    this.listed = new Listed(parts.name, parts.validateSchema);
    this.tasks = new TaskCalls({
      ...parts,
      listed: this.listed,
      session: parts.currentSession,
    });
  }

  /** Made attached to the latest session, as one made with the client and attached to each would be. */
  get subscriptions(): Subscriptions {
    if (!this.#subscriptions) {
      const { name, requestTimeout, warn } = this.parts;
      this.#subscriptions = new Subscriptions(name, requestTimeout, warn);
      if (this.session) this.#subscriptions.attach(this.session);
    }
    return this.#subscriptions;
  }

  /** Watches a resource: its updates arrive as `'resourceUpdated'`, and the watch is restored on every new session. */
  async subscribe(uri: string, rawOptions: RequestOptions | undefined): Promise<void> {
    const { name, requests } = this.parts;
    const options = normalizeRequestOptions(rawOptions, name, 'resources/subscribe');
    const session = await requests.whenReady('resources/subscribe', options);
    const missing = missingCapability('resources/subscribe', session.serverCapabilities);
    if (missing) throw new CapabilityError('resources/subscribe', missing, { server: name });
    await this.subscriptions.subscribe(uri, (method, params) => requests.request(method, params, options));
  }

  async unsubscribe(uri: string, options: RequestOptions | undefined): Promise<void> {
    const { requests } = this.parts;
    await this.subscriptions.unsubscribe(uri, (method, params) => requests.request(method, params, options));
  }

  /** A new session is ready: what belonged to the previous one is forgotten. */
  follow(session: Session): void {
    this.session = session;
    this.parts.requests.cache?.clear();
    this.listed.forgetAll();
    this.tasks.clear();
    this.#subscriptions?.attach(session);
  }

  /**
   * The client is closing: its resource subscriptions end here, and the tasks callTool follows
   * are cancelled (TaskCalls.cancelFollowed); resolves when the cancels are answered, undefined when
   * there was none to send.
   */
  closing(): Promise<void> | undefined {
    this.#subscriptions?.dispose();
    return this.tasks.cancelFollowed();
  }

  /** What the Client reads from a notification, after passing it on as `'notification'`. */
  route(notification: JsonRpcNotification, emit: (event: string, ...args: unknown[]) => void): void {
    routeNotification(notification, {
      session: this.session,
      cache: this.parts.requests.cache,
      listed: this.listed,
      subscriptions: () => this.subscriptions,
      emit,
    });
  }
}
