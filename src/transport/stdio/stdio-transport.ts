import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { channels, debug } from '../../diagnostics.js';
import { ConnectionClosedError, describeCloseReason, UsageError } from '../../errors.js';
import { parseMessage } from '../../jsonrpc/classify.js';
import type { JsonRpcMessage } from '../../jsonrpc/messages.js';
import { serialize } from '../../jsonrpc/serialize.js';
import { SafeEmitter } from '../../user-code.js';
import { type CloseReason, redact, type Transport, type TransportEvents } from '../transport.js';
import { Framer } from './framer.js';
import { type ResolvedStdioOptions, resolveStdioOptions, type StdioOptions } from './options.js';
import { type ExitStatus, ServerProcess } from './server-process.js';
import { type SpawnedServer, spawnServer } from './spawn-server.js';
import type { StderrTail } from './stderr-tail.js';
import { WriteQueue } from './write-queue.js';

export type { ExitStatus } from './server-process.js';

/** Settings from whoever builds the transport; not part of StdioOptions. */
export interface StdioTransportContext {
  /** A label for errors and telemetry (a Client passes its name). */
  readonly name?: string;
  /** The key the options were given under, prefixed to ConfigError keys, e.g. `transport`. */
  readonly keyPrefix?: string;
}

/** After the process exits, how long to wait for the rest of its stdout (a grandchild may hold the pipe). */
const EXIT_DRAIN_MS = 100;
/** A server that closes stdout but keeps running is given this long to exit before the transport closes. */
const STDOUT_END_GRACE_MS = 1000;
/** How much of a dropped line the debug log shows. */
const JUNK_EXCERPT_CHARS = 200;

type State = 'new' | 'starting' | 'open' | 'closed';

/** What a started transport holds of its process. */
interface Running {
  readonly child: ChildProcessWithoutNullStreams;
  readonly server: ServerProcess;
  readonly framer: Framer;
  readonly writeQueue: WriteQueue;
  readonly stderrTail: StderrTail | undefined;
}

/**
 * Runs one local MCP server process and speaks newline-delimited JSON-RPC over its stdin and
 * stdout. Never through a shell; with an allowlisted environment; bounded in memory both ways;
 * and on close, stdin EOF -> SIGTERM -> SIGKILL across the server's whole process group.
 * One instance runs one process once: a restart is a new instance.
 */
export class StdioTransport extends SafeEmitter<TransportEvents> implements Transport {
  /** Always `'stdio'`. */
  readonly kind = 'stdio';

  readonly #options: ResolvedStdioOptions;
  readonly #name: string | undefined;
  readonly #keyPrefix: string;
  readonly #platform: NodeJS.Platform;
  #state: State = 'new';
  #closeReason: CloseReason | undefined;
  #running: Running | undefined;
  readonly #exited: Promise<ExitStatus>;
  #settleExited!: (status: ExitStatus) => void;
  #stdoutEnded = false;
  #exitTimer: NodeJS.Timeout | undefined;
  #stderrWaited = false;
  /** The values of the Secrets in the server's env: a server may print them, and we must not. */
  #secrets: readonly string[] = [];

  /**
   * Checks the options and starts nothing; `start()` spawns the process.
   *
   * @throws {@link ConfigError} when an option is missing or invalid; `key` names it.
   */
  constructor(options: StdioOptions, context: StdioTransportContext = {}) {
    super();
    this.#name = context.name;
    this.#keyPrefix = context.keyPrefix ?? '';
    this.#platform = process.platform;
    this.#options = resolveStdioOptions(options, this.#keyPrefix, this.#platform, process.env.PATHEXT);
    this.#exited = new Promise((resolve) => {
      this.#settleExited = resolve;
    });
  }

  /** Resolves when the process and every process of its group are gone. Never rejects. */
  get exited(): Promise<ExitStatus> {
    return this.#exited;
  }

  /** The server's pid once started. */
  get pid(): number | undefined {
    return this.#running?.child.pid;
  }

  get closeReason(): CloseReason | undefined {
    return this.#closeReason;
  }

  /** The validated options, every default filled. */
  get options(): ResolvedStdioOptions {
    return this.#options;
  }

  /**
   * Resolves the executable in the child's PATH, spawns it, and resolves once it runs.
   * Rejects with SpawnError (or ConfigError for a refused Windows batch file) and closes with
   * `spawn_failed` when it cannot start.
   */
  async start(): Promise<void> {
    if (this.#state !== 'new') throw new UsageError('start() can be called only once per transport');
    this.#state = 'starting';
    let spawned: SpawnedServer;
    try {
      spawned = await spawnServer(this.#options, {
        name: this.#name,
        keyPrefix: this.#keyPrefix,
        platform: this.#platform,
        parentEnv: process.env,
        cwd: this.#options.cwd ?? process.cwd(),
      });
    } catch (error) {
      this.#failStart(error as Error);
      throw error;
    }
    this.#secrets = spawned.secrets;
    const running = this.#wire(spawned.child, spawned.stderrTail);
    if (this.#state !== 'starting') {
      // close() was called while we were spawning: the process must not outlive that.
      this.#stop(running, false);
      throw new ConnectionClosedError(this.#closeReason!, { server: this.#name });
    }
    this.#state = 'open';
    const { pid } = running.child;
    if (channels.spawn.hasSubscribers) {
      channels.spawn.publish({ server: this.#name, pid, command: this.#options.command });
    }
    debug('%s: spawned %s (pid %d)', this.#name ?? 'stdio', this.#options.command, pid);
  }

  /**
   * Serialises the message and hands it to the pipe at once; never waits for the server to read.
   * Throws ConnectionClosedError after close, or when this message would pass `maxWriteQueueBytes`
   * (which closes the transport with `write_queue_full`).
   */
  send(message: JsonRpcMessage): void {
    if (this.#state === 'closed') throw new ConnectionClosedError(this.#closeReason!, { server: this.#name });
    if (this.#state !== 'open') throw new UsageError('send() needs a started transport: await start() first');
    const line = serialize(message);
    if (channels.message.hasSubscribers) this.#publishMessage('send', line.trimEnd());
    if (!this.#running!.writeQueue.write(line)) {
      this.#closeWith({ type: 'write_queue_full', limit: this.#options.maxWriteQueueBytes });
      throw new ConnectionClosedError(this.#closeReason!, { server: this.#name });
    }
  }

  /**
   * Closes for good. Resolves at once: the server's shutdown (stdin EOF, SIGTERM, SIGKILL) runs on
   * its own, and `exited` tells when it is over. Messages sent before close() are still written.
   */
  close(): Promise<void> {
    if (this.#state === 'new') {
      this.#state = 'closed';
      this.#closeReason = { type: 'closed' };
      this.#settleExited({ code: null, signal: null });
      this.emit('close', this.#closeReason);
      return Promise.resolve();
    }
    this.#closeWith({ type: 'closed' });
    return Promise.resolve();
  }

  /** `await using transport = new StdioTransport(...)` calls it: the same as `close()`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #failStart(error: Error): void {
    this.#settleExited({ code: null, signal: null });
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#closeReason = { type: 'spawn_failed', error };
    this.#publishClose();
    this.emit('close', this.#closeReason);
  }

  /** Listens to the process and its pipes: messages in, and what ends the transport. */
  #wire(child: ChildProcessWithoutNullStreams, stderrTail: StderrTail | undefined): Running {
    const options = this.#options;
    const label = this.#name ?? 'stdio';
    const writeQueue = new WriteQueue(child.stdin, options.maxWriteQueueBytes);
    const framer = new Framer({
      maxMessageBytes: options.maxMessageBytes,
      maxJunkLines: options.maxJunkLines,
      onMessage: (classified) => {
        if (this.#state !== 'open') return;
        if (channels.message.hasSubscribers)
          this.#publishMessage('receive', JSON.stringify(classified.message));
        // A listener's exception is re-thrown later (SafeEmitter): the rest of the chunk still goes.
        this.emit('message', classified.message);
      },
      onJunk: (rawReason, bytes, rawText) => {
        const { reason, text } = this.#shownJunk(rawReason, rawText);
        debug('%s: dropped a line of %d bytes from the server (%s): %s', label, bytes, reason, text);
        if (channels.junk.hasSubscribers)
          channels.junk.publish({ server: this.#name, pid: child.pid, reason, bytes });
      },
      onFatal: (reason) => this.#closeWith(reason),
    });
    const context = { ...options, name: this.#name, platform: this.#platform };
    const server = new ServerProcess(child, context, () => this.#onExit());
    const running: Running = { child, server, framer, writeQueue, stderrTail };
    this.#running = running;
    child.stdout.on('data', (chunk: Buffer) => {
      writeQueue.inputArrived();
      framer.push(chunk);
    });
    child.stdout.on('end', () => {
      this.#stdoutEnded = true;
      framer.end();
      if (server.status) this.#closeOnExit();
      else if (this.#state === 'open') {
        this.#exitTimer = setTimeout(() => {
          this.#closeWith({
            type: 'stream_error',
            error: new Error('the server closed its stdout but kept running'),
          });
        }, STDOUT_END_GRACE_MS);
      }
    });
    const onStreamError = (error: Error) => {
      debug('%s: pipe error: %s', label, error.message);
      if (this.#state !== 'open' || server.status || this.#exitTimer) return;
      // A write to a dying server fails with EPIPE just before its exit is seen: wait a moment
      // for the exit status, which says more than the broken pipe.
      this.#exitTimer = setTimeout(() => this.#closeWith({ type: 'stream_error', error }), EXIT_DRAIN_MS);
    };
    child.stdout.on('error', onStreamError);
    child.stdin.on('error', onStreamError);
    return running;
  }

  #onExit(): void {
    if (this.#state !== 'open') return;
    clearTimeout(this.#exitTimer);
    // Read what the server wrote before exiting, but do not wait for a grandchild holding the pipe.
    if (this.#stdoutEnded) this.#closeOnExit();
    else this.#exitTimer = setTimeout(() => this.#closeOnExit(), EXIT_DRAIN_MS);
  }

  /**
   * A dropped line's reason and excerpt as logs and telemetry may show them. A careless server may
   * print a Secret of its env (a token in a banner), and the parser's reason quotes the line's
   * start: a line holding a Secret is shown, and described, with the Secret redacted.
   */
  #shownJunk(reason: string, text: string): { reason: string; text: string } {
    const redacted = redact(text, this.#secrets);
    if (redacted === text) return { reason, text: text.slice(0, JUNK_EXCERPT_CHARS) };
    const again = parseMessage(redacted);
    return {
      reason: again.kind === 'invalid' ? again.reason : 'a line holding a Secret',
      text: redacted.slice(0, JUNK_EXCERPT_CHARS),
    };
  }

  #closeOnExit(): void {
    if (this.#state !== 'open') return;
    const { child, server, stderrTail } = this.#running!;
    const stderr = child.stderr;
    if (stderrTail && stderr && !stderr.readableEnded && !this.#stderrWaited) {
      // The exit can be seen before the last of stderr is read: that last line is the reason.
      this.#stderrWaited = true;
      clearTimeout(this.#exitTimer);
      const done = () => {
        clearTimeout(this.#exitTimer);
        this.#closeOnExit();
      };
      stderr.once('end', done);
      this.#exitTimer = setTimeout(done, EXIT_DRAIN_MS);
      return;
    }
    const status = server.status!;
    const tail = stderrTail?.text();
    this.#closeWith({
      type: 'exit_status',
      status: status.code,
      signal: status.signal,
      ...(tail !== undefined ? { stderrTail: tail } : {}),
    });
  }

  #closeWith(reason: CloseReason): void {
    if (this.#state === 'closed') return;
    const graceful = reason.type === 'closed';
    this.#state = 'closed';
    this.#closeReason = reason;
    clearTimeout(this.#exitTimer);
    const running = this.#running;
    running?.framer.stop();
    if (!graceful) running?.writeQueue.close();
    // While still spawning there is no process yet: start() stops it once it has one.
    if (running) this.#stop(running, graceful);
    this.#publishClose();
    debug('%s: closed (%s)', this.#name ?? 'stdio', describeCloseReason(reason));
    this.emit('close', reason);
  }

  /** Starts the shutdown on its own; `exited` settles when it is over. */
  #stop({ child, server, writeQueue }: Running, flushPending: boolean): void {
    const closeStdin = () => {
      if (flushPending) {
        writeQueue.flushNow();
        child.stdin.end();
      } else {
        child.stdin.destroy();
      }
      writeQueue.close();
    };
    void server.stop(closeStdin).then((status) => this.#settleExited(status));
  }

  #publishMessage(direction: 'send' | 'receive', text: string): void {
    channels.message.publish({
      server: this.#name,
      pid: this.#running?.child.pid,
      direction,
      text: redact(text, this.#secrets),
    });
  }

  #publishClose(): void {
    if (channels.close.hasSubscribers) {
      channels.close.publish({
        server: this.#name,
        pid: this.#running?.child.pid,
        reason: this.#closeReason,
      });
    }
  }
}
