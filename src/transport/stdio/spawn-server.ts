import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { closeSync, createWriteStream, openSync, statSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { debug } from '../../diagnostics.js';
import { ConfigError, SpawnError } from '../../errors.js';
import { redact } from '../transport.js';
import { batchFileLaunch } from './batch-launch.js';
import { buildEnvironment, getVariable, secretValues } from './environment.js';
import { execFindsWhatWeWould, hasPathSeparator, isBatchFile, resolveExecutable } from './executable.js';
import type { ResolvedStdioOptions } from './options.js';
import { StderrTail } from './stderr-tail.js';

/** What one start reads of this process, and the names its errors carry. */
export interface SpawnContext {
  /** A label for errors (a Client passes its name). */
  readonly name: string | undefined;
  /** The key the options were given under, prefixed to ConfigError keys. */
  readonly keyPrefix: string;
  readonly platform: NodeJS.Platform;
  /** This process's environment: the allowlist inherits from it, and COMSPEC is read from it. */
  readonly parentEnv: Record<string, string | undefined>;
  /** The directory the server runs in: `options.cwd`, else this process's at this start. */
  readonly cwd: string;
}

/** A server process that runs, with what its transport needs to watch it. */
export interface SpawnedServer {
  readonly child: ChildProcessWithoutNullStreams;
  /** The values of the Secrets in the server's env: a server may print them, and we must not. */
  readonly secrets: readonly string[];
  /** With `stderrTail`: the end of stderr, which is piped through us and passed on where it goes. */
  readonly stderrTail: StderrTail | undefined;
}

/**
 * Starts the server: builds its environment, finds the executable in the child's PATH (refusing a
 * Windows batch file unless allowed), routes stderr, spawns it without a shell and resolves once
 * it runs. Rejects with SpawnError, or ConfigError (a refused batch file, a Secret that throws).
 */
export async function spawnServer(
  options: ResolvedStdioOptions,
  context: SpawnContext,
): Promise<SpawnedServer> {
  const { name, keyPrefix, platform, parentEnv, cwd } = context;
  // No Secret's value (PATH itself may be one) may reach a message, a cause or a close reason.
  let secrets: readonly string[] = [];
  const fail = (message: string, cause?: unknown, retryable = false) => {
    const safeCause = cause !== undefined && redact(inspect(cause), secrets) === inspect(cause);
    return new SpawnError(redact(message, secrets), options.command, retryable, {
      server: name,
      ...(safeCause ? { cause } : {}),
    });
  };
  let env: Record<string, string>;
  try {
    env = await buildEnvironment(parentEnv, options.env, platform, { server: name, keyPrefix });
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw fail(`the environment could not be built: ${(error as Error).message}`, error);
  }
  secrets = secretValues(env, options.env, platform);
  const pathValue = getVariable(env, 'PATH', platform);
  const pathExt = getVariable(env, 'PATHEXT', platform);
  // Where the command is, or why it cannot start, named as the user can fix it: the cwd gone,
  // the command not found or not executable.
  const check = (): { file: string } | { problem: SpawnError } => {
    // Checked when the options were validated, but it may have been removed since; spawn would
    // then report ENOENT for the executable.
    if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
      return { problem: fail(`the working directory ${cwd} does not exist any more`) };
    }
    const found = resolveExecutable(options.command, { platform, pathValue, pathExt, cwd });
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
  // On POSIX exec searches the child's PATH as we would (see execFindsWhatWeWould), so the search
  // runs here only to explain a failure. Windows has PATHEXT, and batch files to refuse first.
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
        pathExt,
        comspec: getVariable(parentEnv, 'COMSPEC', platform),
      });
      if ('problem' in launch) {
        if (!launch.key) throw fail(launch.problem);
        throw new ConfigError(keyPrefix ? `${keyPrefix}.${launch.key}` : launch.key, launch.problem);
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
  let stderrTail: StderrTail | undefined;
  let stderrSink: Writable | undefined;
  if (options.stderrTail > 0) {
    stderrTail = new StderrTail(options.stderrTail, secrets);
    if (options.stderr.kind === 'inherit') stderrSink = process.stderr;
    // The stream owns the descriptor from here on, and closes it when the pipe ends.
    if (typeof stderr === 'number') stderrSink = createWriteStream('', { fd: stderr });
    stderr = 'pipe';
  }
  // A stderr file we write to is closed with the pipe, or at once if there is no process; never process.stderr.
  const endStderrSink = () => {
    if (stderrSink && stderrSink !== process.stderr) stderrSink.end();
    stderrSink = undefined;
  };
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
    endStderrSink();
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
      endStderrSink();
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
  if (stderrTail && child.stderr) {
    const tail = stderrTail;
    child.stderr.on('data', (chunk: Buffer) => {
      tail.push(chunk);
      stderrSink?.write(chunk);
    });
    child.stderr.on('error', (error) => debug('%s: stderr pipe error: %s', name ?? 'stdio', error.message));
    child.stderr.on('close', endStderrSink);
  }
  return { child, secrets, stderrTail };
}
