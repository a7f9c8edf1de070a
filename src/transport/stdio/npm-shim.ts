import path from 'node:path';

/**
 * What one of npm's Windows `.cmd` shims runs: node with a script. npm writes two kinds, both
 * recognised here only in the exact forms npm writes (any other line and the file is not a shim):
 * - a package bin's shim (npm's cmd-shim, in node_modules/.bin or a global prefix), from npm 6 on:
 *   node.exe beside the shim or else `node` from PATH, the arguments of the bin's `#!` line, the
 *   bin's script;
 * - npm's own npm.cmd and npx.cmd (beside node.exe in a Node install): node.exe beside or `node`,
 *   and npm's CLI script, replaced by the one under npm's global prefix when npm was updated there.
 */
export interface NpmShim {
  /** node.exe beside the shim: run when it exists, else `node` from the child's PATH. */
  readonly nodeBeside: string;
  /** Arguments the shim gives node before the script (from the bin's `#!` line). */
  readonly nodeArgs: readonly string[];
  /** The Node script the shim starts (absolute). */
  readonly script: string;
  /**
   * npm's own shims: node arguments that print npm's global prefix, and the script's path under
   * that prefix, which the shim runs instead of `script` when it exists.
   */
  readonly globalPrefix?: { readonly queryArgs: readonly string[]; readonly script: string };
}

// The if-node.exe-else-node block of every cmd-shim version; `D` is how it names the shim's folder.
const nodeChoice = (D: string) =>
  `IF EXIST "${D}\\\\node\\.exe" \\(\\n` +
  `SET "_prog=${D}\\\\node\\.exe"\\n` +
  '\\) ELSE \\(\\n' +
  'SET "_prog=node"\\n' +
  'SET PATHEXT=%PATHEXT:;\\.JS;=;%\\n' +
  '\\)\\n';
// `args` are the #! line's, never quoted or escaped by cmd-shim: anything cmd.exe would read
// (quotes, %, ^&|<>) is not taken for a plain argument.
const launch = (D: string) => `"%_prog%" (?<args>[^"%^&|<>\\n]*) "${D}\\\\(?<target>[^"%\\n]+)" %\\*\\n`;

/** The whole text of each cmd-shim version (lines trimmed, blank ones and leading `@` dropped). */
const CMD_SHIMS: readonly RegExp[] = [
  // cmd-shim 5 and later (npm 8.5 on).
  new RegExp(
    '^ECHO off\\nGOTO start\\n:find_dp0\\nSET dp0=%~dp0\\nEXIT /b\\n:start\\nSETLOCAL\\nCALL :find_dp0\\n' +
      nodeChoice('%dp0%') +
      'endLocal & goto #_undefined_# 2>NUL \\|\\| title %COMSPEC% & ' +
      launch('%dp0%') +
      '$',
  ),
  // cmd-shim 3 and 4 (npm 7 to 8.4).
  new RegExp(
    '^ECHO off\\nSETLOCAL\\nCALL :find_dp0\\n' +
      nodeChoice('%dp0%') +
      launch('%dp0%') +
      'ENDLOCAL\\nEXIT /b %errorlevel%\\n:find_dp0\\nSET dp0=%~dp0\\nEXIT /b\\n$',
  ),
  // cmd-shim 2 (npm 6).
  new RegExp(`^SETLOCAL\\n${nodeChoice('%~dp0')}${launch('%~dp0')}ENDLOCAL\\n$`),
];

/** npm's own npm.cmd / npx.cmd, npm 6 to 11: the variables it sets, its prefix query, its script. */
const NPM_CLI_SHIM = new RegExp(
  "^:: Created by npm, please don't edit manually\\.\\nECHO OFF\\nSETLOCAL\\n" +
    'SET "NODE_EXE=%~dp0\\\\node\\.exe"\\nIF NOT EXIST "%NODE_EXE%" \\(\\nSET "NODE_EXE=node"\\n\\)\\n' +
    '(?<variables>(?:SET "[A-Z_]+=%~dp0\\\\[^"%\\n]+"\\n)+)' +
    `FOR /F "delims=" %%F IN \\('CALL "%NODE_EXE%" (?<query>[^'\\n]+)'\\) DO \\(\\n` +
    'SET "(?<prefixed>[A-Z_]+)=%%F\\\\(?<underPrefix>[^"%\\n]+)"\\n\\)\\n' +
    'IF EXIST "%\\k<prefixed>%" \\(\\nSET "(?<cli>[A-Z_]+)=%\\k<prefixed>%"\\n\\)\\n' +
    '"%NODE_EXE%" "%\\k<cli>%" %\\*\\n$',
);

/** The lines as cmd.exe reads them for these files: trimmed, blank ones and echo-off `@` dropped. */
function normalizedLines(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/^@/, ''))
    .filter((line) => line !== '')
    .map((line) => `${line}\n`)
    .join('');
}

/**
 * Parses a `.cmd` file as one of npm's shims. `shimFile` is its absolute path: the paths it names
 * are relative to the shim's folder. Undefined when the file is not, or not only, an npm shim
 * that runs node (a bin whose `#!` names another program or sets variables, any edited shim),
 * and on any platform but Windows, where no such shim is run.
 */
export function parseNpmShim(text: string, shimFile: string, platform: NodeJS.Platform): NpmShim | undefined {
  if (platform !== 'win32') return undefined;
  const folder = path.win32.dirname(shimFile);
  const nodeBeside = path.win32.join(folder, 'node.exe');
  const lines = normalizedLines(text);
  for (const shape of CMD_SHIMS) {
    const groups = shape.exec(lines)?.groups;
    if (!groups) continue;
    const nodeArgs = groups.args!.split(/[ \t]+/).filter(Boolean);
    return { nodeBeside, nodeArgs, script: path.win32.join(folder, groups.target!) };
  }
  const groups = NPM_CLI_SHIM.exec(lines)?.groups;
  if (!groups) return undefined;
  const variables = new Map<string, string>();
  for (const [, name, relative] of groups.variables!.matchAll(/^SET "([A-Z_]+)=%~dp0\\([^"%\n]+)"$/gm)) {
    variables.set(name!, path.win32.join(folder, relative!));
  }
  const script = variables.get(groups.cli!);
  // The query: "%VARIABLE%" for a path set above, or a plain word (`prefix`, `-g`).
  const queryArgs = groups.query!.split(' ').map((word) => {
    const named = /^"%([A-Z_]+)%"$/.exec(word);
    return named ? variables.get(named[1]!) : /^[a-z-]+$/.test(word) ? word : undefined;
  });
  if (script === undefined || queryArgs.some((arg) => arg === undefined) || queryArgs.length === 0) {
    return undefined;
  }
  return {
    nodeBeside,
    nodeArgs: [],
    script,
    globalPrefix: { queryArgs: queryArgs as string[], script: groups.underPrefix! },
  };
}

/**
 * The script under npm's global prefix, from what the prefix query printed: like the shim's
 * `FOR /F "delims="` loop, the last non-blank line wins. Undefined when it printed nothing.
 */
export function scriptUnderPrefix(printed: string, underPrefix: string): string | undefined {
  const prefix = printed
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .at(-1);
  return prefix === undefined ? undefined : path.win32.join(prefix, underPrefix);
}
