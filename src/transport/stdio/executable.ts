import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** What a file system look-up found at one candidate path. */
export type ProbeResult = 'executable' | 'not-executable' | 'missing';

export type Probe = (file: string, platform: NodeJS.Platform) => ProbeResult;

export type Resolution =
  | { ok: true; file: string }
  | { ok: false; problem: 'missing'; searched: readonly string[] }
  | { ok: false; problem: 'not-executable'; file: string };

export interface ResolveContext {
  platform: NodeJS.Platform;
  /** The PATH the child will get. */
  pathValue: string | undefined;
  /** Windows only: the PATHEXT the child will get. */
  pathExt: string | undefined;
  /** The directory a relative path is resolved against (the child's cwd). */
  cwd: string;
}

export const defaultProbe: Probe = (file, platform) => {
  try {
    if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return 'missing';
  } catch {
    return 'missing';
  }
  if (platform === 'win32') return 'executable';
  try {
    accessSync(file, constants.X_OK);
    return 'executable';
  } catch {
    return 'not-executable';
  }
};

const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD';

function windowsCandidates(file: string, pathExt: string | undefined): string[] {
  // Trimmed: Windows ignores a name's trailing spaces and dots, so a stray ".CMD " entry would find
  // npx.cmd under a name isBatchFile could miss.
  const extensions = (pathExt || DEFAULT_PATHEXT)
    .split(';')
    .map((ext) => ext.trim().toLowerCase())
    .filter(Boolean);
  const own = path.win32.extname(file).toLowerCase();
  const withExtensions = extensions.map((ext) => file + ext);
  return own && extensions.includes(own) ? [file, ...withExtensions] : withExtensions;
}

/** A command with a separator is a path (resolved against cwd), not a name to look up in PATH. */
export function hasPathSeparator(command: string, platform: NodeJS.Platform): boolean {
  return platform === 'win32' ? /[\\/]/.test(command) : command.includes('/');
}

/** The PATH entries to search, in order. Windows allows an entry in double quotes. */
function pathEntries(pathValue: string | undefined, platform: NodeJS.Platform): string[] {
  if (platform !== 'win32') return (pathValue ?? '').split(':').filter(Boolean);
  return (pathValue ?? '')
    .split(';')
    .map((entry) => (/^".*"$/.test(entry) ? entry.slice(1, -1) : entry))
    .filter(Boolean);
}

/**
 * Finds the file to execute, as the OS would but against the child's PATH: a name is looked up
 * in each PATH entry (with PATHEXT on Windows); a path with a separator is resolved against cwd.
 * Empty PATH entries are skipped rather than meaning "the current directory"; a relative entry is
 * resolved against cwd, as the child (which changes to cwd before it executes) would resolve it.
 */
export function resolveExecutable(
  command: string,
  context: ResolveContext,
  probe: Probe = defaultProbe,
): Resolution {
  const { platform } = context;
  const api = platform === 'win32' ? path.win32 : path.posix;
  const expand = (file: string) => (platform === 'win32' ? windowsCandidates(file, context.pathExt) : [file]);
  const directories = hasPathSeparator(command, platform) ? [''] : pathEntries(context.pathValue, platform);

  const searched: string[] = [];
  let notExecutable: string | undefined;
  for (const directory of directories) {
    const base = api.resolve(context.cwd, directory, command);
    for (const candidate of expand(base)) {
      searched.push(candidate);
      const found = probe(candidate, platform);
      if (found === 'executable') return { ok: true, file: candidate };
      if (found === 'not-executable') notExecutable ??= candidate;
    }
  }
  if (notExecutable) return { ok: false, problem: 'not-executable', file: notExecutable };
  return { ok: false, problem: 'missing', searched };
}

/** A path from a root: a drive (`C:\`) or a share (`\\host\share`) on Windows, `/` elsewhere. */
function isFullPath(command: string, platform: NodeJS.Platform): boolean {
  return platform === 'win32' ? /^([a-z]:[\\/]|[\\/]{2}[^\\/])/i.test(command) : command.startsWith('/');
}

/**
 * Whether a command with whitespace in it is one path, spaces and all: a full path naming an
 * existing executable (on Windows found as it would be run, PATHEXT extensions included), such
 * as `C:\Program Files\nodejs\node.exe`. A relative command with whitespace is never one: it
 * looks like a command line (`npx -y server`), and no shell splits it.
 */
export function isSpacedExecutablePath(
  command: string,
  platform: NodeJS.Platform,
  pathExt: string | undefined,
  probe: Probe = defaultProbe,
): boolean {
  if (!isFullPath(command, platform)) return false;
  const api = platform === 'win32' ? path.win32 : path.posix;
  const cwd = api.parse(command).root;
  return resolveExecutable(command, { platform, pathValue: undefined, pathExt, cwd }, probe).ok;
}

/**
 * POSIX: whether exec's own search (in the child, against the child's PATH, after it changed to
 * cwd) runs the file resolveExecutable would find. A path with a separator is resolved against
 * cwd by both. In PATH both try the entries in order and pass over a file that is not executable,
 * but exec reads an empty entry as the current directory (where resolveExecutable never looks)
 * and an unset PATH as a default one: only a PATH of absolute entries is left to exec.
 */
export function execFindsWhatWeWould(command: string, pathValue: string | undefined): boolean {
  if (command.includes('/')) return true;
  if (!pathValue) return false;
  return pathValue.split(':').every((entry) => entry.startsWith('/'));
}

/** cmd.exe interprets these; a line break would also cut the command line short. */
const BATCH_METACHARACTERS = /["%^&|<>\r\n]/;

/** Windows ignores trailing spaces and dots in a file name: `run.bat. ` runs run.bat. */
export function isBatchFile(file: string, platform: NodeJS.Platform): boolean {
  return platform === 'win32' && /\.(bat|cmd)[. ]*$/i.test(file);
}

/**
 * Windows runs `.bat`/`.cmd` files through cmd.exe, which parses the command line again
 * (the "BatBadBut" class of bug). Returns why the launch is refused, or undefined if allowed.
 */
export function batchFileProblem(
  file: string,
  args: readonly string[],
  allowBatchFiles: boolean,
  platform: NodeJS.Platform,
): string | undefined {
  if (!isBatchFile(file, platform)) return undefined;
  if (!allowBatchFiles) {
    return (
      `${file} is a batch file, which Windows runs through cmd.exe where arguments are parsed again; ` +
      'set allowBatchFiles: true to allow it, or point command at the real executable (e.g. node.exe)'
    );
  }
  const index = args.findIndex((arg) => BATCH_METACHARACTERS.test(arg));
  if (index !== -1) {
    return (
      `args[${index}] contains one of "%^&|<> or a line break, which cmd.exe would interpret; ` +
      'batch files cannot receive it safely: point command at the real executable (e.g. node.exe) instead'
    );
  }
  return undefined;
}

/**
 * The direct cmd.exe invocation for an allowed batch file, whose arguments were checked by
 * batchFileProblem: Node's own `shell` option is never used.
 */
export function batchFileInvocation(
  file: string,
  args: readonly string[],
  comspec: string | undefined,
): { file: string; args: string[]; windowsVerbatimArguments: true } {
  const quote = (value: string) => (value === '' || /[\s()!,;=]/.test(value) ? `"${value}"` : value);
  const line = [file, ...args].map(quote).join(' ');
  return {
    file: comspec || 'cmd.exe',
    args: ['/d', '/s', '/c', `"${line}"`],
    windowsVerbatimArguments: true,
  };
}
