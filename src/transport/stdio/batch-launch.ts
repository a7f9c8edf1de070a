import { execFile } from 'node:child_process';
import { closeSync, openSync, readSync } from 'node:fs';
import {
  batchFileInvocation,
  batchFileProblem,
  defaultProbe,
  isBatchFile,
  type Probe,
  resolveExecutable,
} from './executable.js';
import { type NpmShim, parseNpmShim, scriptUnderPrefix } from './npm-shim.js';

/** How the process is started. */
export interface Launch {
  readonly file: string;
  readonly args: readonly string[];
  readonly windowsVerbatimArguments: boolean;
}

/** Why it is not: `key` names the option that would allow it, when one would. */
export interface LaunchProblem {
  readonly problem: string;
  readonly key?: 'allowBatchFiles';
}

export interface BatchLaunchContext {
  readonly platform: NodeJS.Platform;
  readonly allowBatchFiles: boolean;
  /** The child's environment, cwd, PATH and PATHEXT: the shim would run in them. */
  readonly env: Record<string, string>;
  readonly cwd: string;
  readonly pathValue: string | undefined;
  readonly pathExt: string | undefined;
  /** This process's COMSPEC: the cmd.exe an allowed batch file runs in. */
  readonly comspec: string | undefined;
}

/** The file system and process look-ups, injected by tests. */
export interface LaunchIo {
  readonly probe: Probe;
  /** The file's text, undefined when it cannot be read or is too large for a shim. */
  readonly readShim: (file: string) => string | undefined;
  /** What `node args...` prints on stdout in the child's cwd and environment. */
  readonly queryPrefix: (
    node: string,
    args: readonly string[],
    context: BatchLaunchContext,
  ) => Promise<string>;
}

/** npm's shims are under 1 KB; a larger file is read no further and is not one. */
const MAX_SHIM_BYTES = 16 * 1024;
/** npm's prefix query loads npm's configuration: well under a second, seconds under Wine. */
const PREFIX_QUERY_TIMEOUT_MS = 20_000;

function readShim(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buffer = Buffer.alloc(MAX_SHIM_BYTES + 1);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    return length > MAX_SHIM_BYTES ? undefined : buffer.toString('utf8', 0, length);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The node the shim runs: node.exe beside it, else `node` from PATH without `.JS` (as the shim does). */
function shimNode(shim: NpmShim, context: BatchLaunchContext, probe: Probe): string | undefined {
  if (probe(shim.nodeBeside, context.platform) === 'executable') return shim.nodeBeside;
  const pathExt = (context.pathExt || '.COM;.EXE;.BAT;.CMD')
    .split(';')
    .filter((ext) => ext.trim().toUpperCase() !== '.JS')
    .join(';');
  const found = resolveExecutable('node', { ...context, pathExt }, probe);
  return found.ok ? found.file : undefined;
}

/** What npm's prefix query prints, like the shim's `FOR /F` loop (stdout only, whatever the exit). */
function queryPrefix(node: string, args: readonly string[], context: BatchLaunchContext): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      node,
      args,
      { cwd: context.cwd, env: context.env, windowsHide: true, timeout: PREFIX_QUERY_TIMEOUT_MS },
      (_error, stdout) => resolve(String(stdout ?? '')),
    );
  });
}

/** The real file system and processes. */
export const defaultLaunchIo: LaunchIo = { probe: defaultProbe, readShim, queryPrefix };

/**
 * How to start `file`, a `.bat`/`.cmd` that the command resolved to on Windows. npm's shims
 * (npx.cmd, a package bin's .cmd) are run as what they start: node with the script, no cmd.exe,
 * the arguments untouched. Any other batch file is refused unless `allowBatchFiles`, and then
 * run through cmd.exe only if no argument holds what cmd.exe would interpret.
 */
export async function batchFileLaunch(
  file: string,
  args: readonly string[],
  context: BatchLaunchContext,
  io: LaunchIo = defaultLaunchIo,
): Promise<Launch | LaunchProblem> {
  const { probe } = io;
  const text = io.readShim(file);
  const shim = text === undefined ? undefined : parseNpmShim(text, file, context.platform);
  const node = shim && shimNode(shim, context, probe);
  if (shim && node === undefined) {
    return {
      problem:
        `${file} is npm's shim for ${shim.script}, which needs node: there is no ${shim.nodeBeside} ` +
        `and node was not found in PATH=${context.pathValue ?? '(unset)'}`,
    };
  }
  // A node that is itself a batch file (some version managers') would need cmd.exe after all.
  if (shim && node && !isBatchFile(node, context.platform)) {
    let script = shim.script;
    if (shim.globalPrefix) {
      const printed = await io.queryPrefix(node, shim.globalPrefix.queryArgs, context);
      const updated = scriptUnderPrefix(printed, shim.globalPrefix.script);
      if (updated && probe(updated, context.platform) === 'executable') script = updated;
    }
    if (probe(script, context.platform) !== 'executable') {
      return { problem: `${file} is npm's shim for ${script}, which does not exist: reinstall the package` };
    }
    return { file: node, args: [...shim.nodeArgs, script, ...args], windowsVerbatimArguments: false };
  }
  const refused = batchFileProblem(file, args, context.allowBatchFiles, context.platform);
  if (refused) return { problem: refused, key: 'allowBatchFiles' };
  return batchFileInvocation(file, args, context.comspec);
}
