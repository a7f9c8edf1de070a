import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { closeSync, createWriteStream, openSync, statSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { channels, debug } from '../../diagnostics.js';
import {
  ConfigError,
  ConnectionClosedError,
  describeCloseReason,
  SpawnError,
  UsageError,
} from '../../errors.js';
import { parseMessage } from '../../jsonrpc/classify.js';
import type { JsonRpcMessage } from '../../jsonrpc/messages.js';
import { serializeLine } from '../../jsonrpc/serialize.js';
import { SafeEmitter } from '../../user-code.js';
import type { CloseReason, Transport, TransportEvents } from '../transport.js';
import { batchFileLaunch } from './batch-launch.js';
import { buildEnvironment, getVariable, redact, secretValues } from './environment.js';
import { execFindsWhatWeWould, hasPathSeparator, isBatchFile, resolveExecutable } from './executable.js';
import { trackLiveServer, untrackLiveServer } from './exit-hook.js';
import { Framer } from './framer.js';
import { type ResolvedStdioOptions, resolveStdioOptions, type StdioOptions } from './options.js';
import { groupIsEmpty, signalGroup } from './process-group.js';
import { runShutdown, shutdownPlan } from './shutdown.js';
import { StderrTail } from './stderr-tail.js';
import { WriteQueue } from './write-queue.js';

/** How the server process ended. Both null when it never started. */
export interface ExitStatus {
  code: number | null;
  signal: string | null;
}

/** Settings from whoever builds the transport; not part of StdioOptions. */
export interface StdioTransportContext {
  /** A label for errors and telemetry (a Client passes its name). */
  readonly name?: string;
  /** The key the options were given under, prefixed to ConfigError keys, e.g. `transport`. */
  readonly keyPrefix?: string;
}

/** Marks a constructor call from fromResolved(): the options are validated already. */
const kResolved = Symbol('conduit-mcp.resolved-stdio-options');

/** After the process exits, how long to wait for the rest of its stdout (a grandchild may hold the pipe). */
const EXIT_DRAIN_MS = 100;
/** A server that closes stdout but keeps running is given this long to exit before the transport closes. */
const STDOUT_END_GRACE_MS = 1000;
/** How much of a dropped line the debug log shows. */
const JUNK_EXCERPT_CHARS = 200;

type State = 'new' | 'starting' | 'open' | 'closed';

/**
 * Runs one local MCP server process and speaks newline-delimited JSON-RPC over its stdin and
 * stdout. Never through a shell; with an allowlisted environment; bounded in memory both ways;
 * and on close, stdin EOF -> SIGTERM -> SIGKILL across the server's whole process group.
 * One instance runs one process once: a restart is a new instance.
 */
export class StdioTransport extends SafeEmitter<TransportEvents> implements Transport {
  readonly kind = 'stdio';

  readonly #options: ResolvedStdioOptions;
  readonly #name: string | undefined;
  readonly #keyPrefix: string;
  #state: State = 'new';
  #closeReason: CloseReason | undefined;
  #child: ChildProcessWithoutNullStreams | undefined;
  #framer: Framer | undefined;
  #writeQueue: WriteQueue | undefined;
  #exitStatus: ExitStatus | undefined;
  // The two promises are made when first asked for (most transports are never awaited on).
  #exited: Promise<ExitStatus> | undefined;
  #finalStatus: ExitStatus | undefined;
  #resolveExited: ((status: ExitStatus) => void) | undefined;
  #leaderExitWait: Promise<void> | undefined;
  #resolveLeaderExit: (() => void) | undefined;
  #stdoutEnded = false;
  #exitTimer: NodeJS.Timeout | undefined;
  /** The values of the Secrets in the server's env: a server may print them, and we must not. */
  #secrets: readonly string[] = [];
  /** With `stderrTail`: stderr is piped through us, kept here and passed on to where it goes. */
  #stderrTail: StderrTail | undefined;
  #stderrSink: Writable | undefined;
  #stderrWaited = false;

  constructor(options: StdioOptions, context: StdioTransportContext = {}) {
    super();
    const resolved = (context as { [kResolved]?: ResolvedStdioOptions })[kResolved];
    this.#options = resolved ?? resolveStdioOptions(options, context.keyPrefix ?? '');
    this.#name = context.name;
    this.#keyPrefix = context.keyPrefix ?? '';
  }

  /** Resolves when the process and every process of its group are gone. Never rejects. */
  get exited(): Promise<ExitStatus> {
    this.#exited ??= this.#finalStatus
      ? Promise.resolve(this.#finalStatus)
      : new Promise((resolve) => {
          this.#resolveExited = resolve;
        });
    return this.#exited;
  }

  #settleExited(status: ExitStatus): void {
    if (this.#finalStatus) return;
    this.#finalStatus = status;
    this.#resolveExited?.(status);
  }

  /** Resolves once the leader process has exited (its group may live on). */
  #leaderExited(): Promise<void> {
    if (this.#exitStatus) return Promise.resolve();
    this.#leaderExitWait ??= new Promise((resolve) => {
      this.#resolveLeaderExit = resolve;
    });
    return this.#leaderExitWait;
  }

  /** A transport from options validated once by resolveStdioOptions (no second validation); the stdio kind uses it. @internal */
  static fromResolved(options: ResolvedStdioOptions, context: StdioTransportContext = {}): StdioTransport {
    const internal = { ...context, [kResolved]: options };
    return new StdioTransport(undefined as unknown as StdioOptions, internal);
  }

  /** The server's pid once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
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
    let child: ChildProcessWithoutNullStreams;
    try {
      child = await this.#spawn();
    } catch (error) {
      this.#failStart(error as Error);
      throw error;
    }
    if (this.#state !== 'starting') {
      // close() was called while we were spawning: the process must not outlive that.
      this.#child = child;
      this.#wire(child);
      this.#runShutdown();
      throw new ConnectionClosedError(this.#closeReason!, { server: this.#name });
    }
    this.#child = child;
    this.#state = 'open';
    this.#wire(child);
    if (channels.spawn.hasSubscribers) {
      channels.spawn.publish({ server: this.#name, pid: child.pid, command: this.#options.command });
    }
    if (debug.enabled)
      debug('%s: spawned %s (pid %d)', this.#name ?? 'stdio', this.#options.command, child.pid);
  }

  /**
   * Serialises the message and hands it to the pipe at once; never waits for the server to read.
   * Throws ConnectionClosedError after close, or when this message would pass `maxWriteQueueBytes`
   * (which closes the transport with `write_queue_full`).
   */
  send(message: JsonRpcMessage): void {
    if (this.#state === 'closed') throw new ConnectionClosedError(this.#closeReason!, { server: this.#name });
    if (this.#state !== 'open') throw new UsageError('send() needs a started transport: await start() first');
    const line = serializeLine(message);
    if (channels.message.hasSubscribers) this.#publishMessage('send', line.text.trimEnd());
    if (!this.#writeQueue!.write(line.text, line.bytes)) {
      this.#closeWith({ type: 'write_queue_full', limit: this.#options.maxWriteQueueBytes });
      throw new ConnectionClosedError(this.#closeReason!, { server: this.#name });
    }
  }

  /**
   * Closes for good. Resolves at once: the server's shutdown (stdin EOF, SIGTERM, SIGKILL) runs on
   * its own, and `exited` tells when it is over. Messages sent before close() are still written.
   */
  close(): Promise<void> {
    if (this.#state === 'closed') return Promise.resolve();
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

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #spawn(): Promise<ChildProcessWithoutNullStreams> {
    const options = this.#options;
    const platform = process.platform;
    let env: Record<string, string>;
    try {
      env = await buildEnvironment(process.env, options.env, platform, {
        server: this.#name,
        keyPrefix: this.#keyPrefix,
      });
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new SpawnError(
        `the environment could not be built: ${(error as Error).message}`,
        options.command,
        false,
        {
          server: this.#name,
          cause: error,
        },
      );
    }
    // No Secret's value (PATH itself may be one) may reach a message, a cause or a close reason.
    const secrets = secretValues(env, options.env, platform);
    this.#secrets = secrets;
    const fail = (message: string, cause?: unknown, retryable = false) => {
      const safeCause = cause !== undefined && redact(inspect(cause), secrets) === inspect(cause);
      return new SpawnError(redact(message, secrets), options.command, retryable, {
        server: this.#name,
        ...(safeCause ? { cause } : {}),
      });
    };
    const cwd = options.cwd ?? process.cwd();
    const pathValue = getVariable(env, 'PATH', platform);
    // Where the command is, or why it cannot start, named as the user can fix it: the cwd gone,
    // the command not found or not executable.
    const check = (): { file: string } | { problem: SpawnError } => {
      // Checked when the options were validated, but it may have been removed since; spawn would
      // then report ENOENT for the executable.
      if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
        return { problem: fail(`the working directory ${cwd} does not exist any more`) };
      }
      const found = resolveExecutable(options.command, {
        platform,
        pathValue,
        pathExt: getVariable(env, 'PATHEXT', platform),
        cwd,
      });
      if (found.ok) return { file: found.file };
      const message =
        found.problem === 'missing'
          ? `${options.command} was not found` +
            (hasPathSeparator(options.command, platform)
              ? ` (resolved against ${cwd})`
              : ` in PATH=${pathValue ?? '(unset)'}`)
          : `${found.file} is not executable (EACCES): check its permissions (chmod +x) or run it through its interpreter`;
      return { problem: fail(message) };
    };

    let file = options.command;
    let args: readonly string[] = options.args;
    let windowsVerbatimArguments = false;
    // On POSIX exec searches the child's PATH itself, as we would (see execFindsWhatWeWould): the
    // search, a stat per PATH entry at every start, runs here only to explain a failure. Windows
    // has PATHEXT, and batch files to refuse before anything runs.
    const searchHere = platform === 'win32' || !execFindsWhatWeWould(options.command, pathValue);
    if (searchHere) {
      const checked = check();
      if ('problem' in checked) throw checked.problem;
      file = checked.file;
      if (isBatchFile(file, platform)) {
        const launch = await batchFileLaunch(file, options.args, {
          platform,
          allowBatchFiles: options.allowBatchFiles,
          env,
          cwd,
          pathValue,
          pathExt: getVariable(env, 'PATHEXT', platform),
          comspec: getVariable(process.env, 'COMSPEC', platform),
        });
        if ('problem' in launch) {
          if (!launch.key) throw fail(launch.problem);
          throw new ConfigError(
            this.#keyPrefix ? `${this.#keyPrefix}.${launch.key}` : launch.key,
            launch.problem,
          );
        }
        ({ file, args, windowsVerbatimArguments } = launch);
      }
    }

    let stderr: 'inherit' | 'ignore' | 'pipe' | number = 'inherit';
    if (options.stderr.kind === 'discard') stderr = 'ignore';
    if (options.stderr.kind === 'file') {
      try {
        stderr = openSync(options.stderr.path, 'a');
      } catch (error) {
        throw fail(
          `the stderr file ${options.stderr.path} cannot be opened: ${(error as Error).message}`,
          error,
        );
      }
    }
    if (options.stderrTail > 0) {
      this.#stderrTail = new StderrTail(options.stderrTail, secrets);
      if (options.stderr.kind === 'inherit') this.#stderrSink = process.stderr;
      // The stream owns the descriptor from here on, and closes it when the pipe ends.
      if (typeof stderr === 'number') this.#stderrSink = createWriteStream('', { fd: stderr });
      stderr = 'pipe';
    }
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(file, args, {
        cwd,
        env,
        stdio: ['pipe', 'pipe', stderr],
        // POSIX: a new session and process group, so shutdown can signal the whole tree.
        detached: platform !== 'win32',
        windowsHide: true,
        windowsVerbatimArguments,
        shell: false,
      }) as ChildProcessWithoutNullStreams;
    } catch (error) {
      this.#endStderrSink();
      throw fail(`${file} could not be spawned: ${(error as Error).message}`, error);
    } finally {
      // The child holds its own copy of the descriptor now.
      if (typeof stderr === 'number') closeSync(stderr);
    }
    await new Promise<void>((resolve, reject) => {
      const onSpawn = () => {
        child.off('error', onError);
        resolve();
      };
      const onError = (error: NodeJS.ErrnoException) => {
        child.off('spawn', onSpawn);
        this.#endStderrSink();
        const notFound = error.code === 'ENOENT' || error.code === 'EACCES';
        const checked = searchHere || !notFound ? { file } : check();
        if ('problem' in checked) {
          reject(checked.problem);
          return;
        }
        // The file was found, so ENOENT means what it needs to run is missing.
        const hint =
          error.code === 'ENOENT'
            ? ': the file exists, so its interpreter (the #! line) or a library it loads is missing'
            : '';
        reject(fail(`${checked.file} could not be started: ${error.message}${hint}`, error, !notFound));
      };
      child.once('spawn', onSpawn);
      child.once('error', onError);
    });
    return child;
  }

  /** Closes a stderr file we write to; never process.stderr. */
  #endStderrSink(): void {
    if (this.#stderrSink && this.#stderrSink !== process.stderr) this.#stderrSink.end();
    this.#stderrSink = undefined;
  }

  #failStart(error: Error): void {
    if (this.#state === 'closed') {
      this.#settleExited({ code: null, signal: null });
      return;
    }
    this.#state = 'closed';
    const stderrTail = this.#stderrTail?.text();
    this.#closeReason = { type: 'spawn_failed', error, ...(stderrTail !== undefined ? { stderrTail } : {}) };
    this.#settleExited({ code: null, signal: null });
    this.#publishClose();
    this.emit('close', this.#closeReason);
  }

  #wire(child: ChildProcessWithoutNullStreams): void {
    const options = this.#options;
    this.#writeQueue = new WriteQueue(child.stdin, options.maxWriteQueueBytes);
    this.#framer = new Framer({
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
        debug(
          '%s: dropped a line of %d bytes from the server (%s): %s',
          this.#name ?? 'stdio',
          bytes,
          reason,
          text,
        );
        if (channels.junk.hasSubscribers)
          channels.junk.publish({ server: this.#name, pid: child.pid, reason, bytes });
      },
      onFatal: (reason) => this.#closeWith(reason),
    });
    const writeQueue = this.#writeQueue;
    child.stdout.on('data', (chunk: Buffer) => {
      writeQueue.inputArrived();
      this.#framer!.push(chunk);
    });
    if (this.#stderrTail && child.stderr) {
      child.stderr.on('data', (chunk: Buffer) => {
        this.#stderrTail!.push(chunk);
        this.#stderrSink?.write(chunk);
      });
      child.stderr.on('error', (error) =>
        debug('%s: stderr pipe error: %s', this.#name ?? 'stdio', error.message),
      );
      child.stderr.on('close', () => this.#endStderrSink());
    }
    child.stdout.on('end', () => {
      this.#stdoutEnded = true;
      this.#framer!.end();
      if (this.#exitStatus) this.#closeOnExit();
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
      debug('%s: pipe error: %s', this.#name ?? 'stdio', error.message);
      if (this.#state !== 'open' || this.#exitStatus || this.#exitTimer) return;
      // A write to a dying server fails with EPIPE just before its exit is seen: wait a moment
      // for the exit status, which says more than the broken pipe.
      this.#exitTimer = setTimeout(() => this.#closeWith({ type: 'stream_error', error }), EXIT_DRAIN_MS);
    };
    child.stdout.on('error', onStreamError);
    child.stdin.on('error', onStreamError);
    child.on('error', (error) => debug('%s: process error: %s', this.#name ?? 'stdio', error.message));
    child.on('exit', (code, signal) => {
      this.#exitStatus = { code, signal };
      this.#resolveLeaderExit?.();
      if (channels.exit.hasSubscribers)
        channels.exit.publish({ server: this.#name, pid: child.pid, code, signal });
      debug('%s: pid %d exited (code %s, signal %s)', this.#name ?? 'stdio', child.pid, code, signal);
      if (this.#state !== 'open') return;
      clearTimeout(this.#exitTimer);
      // Read what the server wrote before exiting, but do not wait for a grandchild holding the pipe.
      if (this.#stdoutEnded) this.#closeOnExit();
      else this.#exitTimer = setTimeout(() => this.#closeOnExit(), EXIT_DRAIN_MS);
    });
    if (child.pid !== undefined) trackLiveServer(child.pid);
  }

  /**
   * A dropped line's reason and excerpt as logs and telemetry may show them. A careless server may
   * print a Secret of its env (a token in a banner), and the parser's reason quotes the line's
   * start: a line holding a Secret is shown, and described, with the Secret redacted.
   */
  #shownJunk(reason: string, text: string): { reason: string; text: string } {
    const redacted = this.#secrets.length > 0 ? redact(text, this.#secrets) : text;
    if (redacted === text) return { reason, text: text.slice(0, JUNK_EXCERPT_CHARS) };
    const again = parseMessage(redacted);
    return {
      reason: again.kind === 'invalid' ? again.reason : 'a line holding a Secret',
      text: redacted.slice(0, JUNK_EXCERPT_CHARS),
    };
  }

  #closeOnExit(): void {
    if (this.#state !== 'open') return;
    const stderr = this.#child?.stderr;
    if (this.#stderrTail && stderr && !stderr.readableEnded && !this.#stderrWaited) {
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
    const status = this.#exitStatus!;
    const stderrTail = this.#stderrTail?.text();
    this.#closeWith({
      type: 'exit_status',
      status: status.code,
      signal: status.signal,
      ...(stderrTail !== undefined ? { stderrTail } : {}),
    });
  }

  #closeWith(reason: CloseReason): void {
    if (this.#state === 'closed') return;
    const graceful = reason.type === 'closed';
    this.#state = 'closed';
    this.#closeReason = reason;
    clearTimeout(this.#exitTimer);
    this.#framer?.stop();
    if (!graceful) this.#writeQueue?.close();
    // While still spawning there is no process yet: start() runs the shutdown once it has one.
    if (this.#child) this.#runShutdown(graceful);
    this.#publishClose();
    debug('%s: closed (%s)', this.#name ?? 'stdio', describeCloseReason(reason));
    this.emit('close', reason);
  }

  #publishMessage(direction: 'send' | 'receive', text: string): void {
    const shown = this.#secrets.length > 0 ? redact(text, this.#secrets) : text;
    channels.message.publish({ server: this.#name, pid: this.#child?.pid, direction, text: shown });
  }

  #publishClose(): void {
    if (channels.close.hasSubscribers) {
      channels.close.publish({ server: this.#name, pid: this.#child?.pid, reason: this.#closeReason });
    }
  }

  /** Starts the escalation on its own; `exited` settles when it is over. */
  #runShutdown(flushPending = false): void {
    const child = this.#child!;
    const pid = child.pid!;
    const platform = process.platform;
    // Keep draining (and dropping) stdout, so a server writing its last words gets no EPIPE; once the
    // leader is gone, let go of the pipe: a grandchild holding it must not keep this process alive.
    child.stdout.removeAllListeners('data');
    child.stdout.resume();
    void this.#leaderExited().then(() => {
      child.stdout.destroy();
      child.stderr?.destroy();
    });
    void runShutdown(shutdownPlan(platform, pid, this.#options), {
      leaderExited: this.#leaderExited(),
      closeStdin: () => {
        if (flushPending) {
          this.#writeQueue?.flushNow();
          child.stdin.end();
        } else {
          child.stdin.destroy();
        }
        this.#writeQueue?.close();
      },
      isGone: () => {
        if (!this.#exitStatus) return false;
        return platform === 'win32' || groupIsEmpty(pid, platform);
      },
      signalGroup: (signal) => {
        if (channels.signal.hasSubscribers) channels.signal.publish({ server: this.#name, pid, signal });
        debug('%s: sending %s to process group %d', this.#name ?? 'stdio', signal, pid);
        signalGroup(pid, signal);
      },
      run: (file, args) =>
        new Promise<boolean>((resolve) => {
          if (this.#exitStatus) return resolve(true);
          debug('%s: running %s %s', this.#name ?? 'stdio', file, args.join(' '));
          const killer = spawn(file, args, { stdio: 'ignore', windowsHide: true, shell: false });
          killer.on('error', (error) => {
            debug('%s: %s failed: %s', this.#name ?? 'stdio', file, error.message);
            resolve(false);
          });
          killer.on('exit', (code) => {
            if (code !== 0)
              debug('%s: %s %s exited with %s', this.#name ?? 'stdio', file, args.join(' '), code);
            resolve(code === 0);
          });
          void this.#leaderExited().then(() => resolve(true));
        }),
    }).then((gone) => {
      if (!gone)
        debug('%s: process group %d still has live members after SIGKILL', this.#name ?? 'stdio', pid);
      untrackLiveServer(pid);
      this.#settleExited(this.#exitStatus ?? { code: null, signal: null });
    });
  }
}
