import { ConfigError } from '../errors.js';

/** A piece of a config string: literal text, or a `${input:id}` the host supplies at start. */
export type Part = string | { readonly input: string };

/** What `${...}` may refer to in one file. */
export interface VariableScope {
  /** Where environment variables come from (`process.env` unless the host says otherwise). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly userHome: string;
  readonly workspaceFolder: string;
  /** The ids declared in VS Code's `inputs`; undefined when the file has none. */
  readonly inputIds: ReadonlySet<string> | undefined;
  /** Whether the host gave a callback that answers `${input:id}`. */
  readonly canResolveInputs: boolean;
}

const PLACEHOLDER = /\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Expands `${VAR}`, `${VAR:-default}` (Claude Code), `${env:VAR}` (VS Code, Cursor), `${userHome}`
 * and `${workspaceFolder}` now; `${input:id}` stays a part for the host's callback. An unset
 * variable without a default is an error naming `where` (`<file>: <key>`), never an empty string.
 */
export function interpolate(raw: string, scope: VariableScope, file: string, key: string): Part[] {
  const parts: Part[] = [];
  let text = '';
  let last = 0;
  for (const match of raw.matchAll(PLACEHOLDER)) {
    text += raw.slice(last, match.index);
    last = match.index + match[0].length;
    const inner = match[1]!;
    const value = resolvePlaceholder(inner, scope, file, key);
    if (typeof value === 'string') {
      text += value;
      continue;
    }
    if (text) parts.push(text);
    text = '';
    parts.push(value);
  }
  text += raw.slice(last);
  if (text || parts.length === 0) parts.push(text);
  return parts;
}

function resolvePlaceholder(inner: string, scope: VariableScope, file: string, key: string): Part {
  const fail = (message: string): never => {
    throw new ConfigError(key, `${file}: ${key}: ${message}`);
  };
  if (inner === 'userHome') return scope.userHome;
  if (inner === 'workspaceFolder') return scope.workspaceFolder;
  if (inner.startsWith('input:')) {
    const id = inner.slice('input:'.length);
    if (scope.inputIds !== undefined && !scope.inputIds.has(id)) {
      fail(
        `\${input:${id}} is not declared in "inputs"; add { "id": "${id}", "type": "promptString" } there`,
      );
    }
    if (!scope.canResolveInputs) {
      fail(
        `\${input:${id}} needs a value from the host, and none was given a way to ask: pass input: (request) => value to ClientPool.fromConfigFile or loadConfigFile, or write the value (or \${env:NAME}) in the file`,
      );
    }
    return { input: id };
  }
  const body = inner.startsWith('env:') ? inner.slice('env:'.length) : inner;
  const split = body.indexOf(':-');
  const name = split === -1 ? body : body.slice(0, split);
  if (!NAME.test(name)) {
    return fail(
      `\${${inner}} is not a variable conduit-mcp can resolve; the forms are \${NAME}, \${NAME:-default}, \${env:NAME}, \${input:id}, \${userHome} and \${workspaceFolder}`,
    );
  }
  const value = scope.env[name];
  // As in the shell: `:-` also replaces an empty value; without a default an empty value is kept.
  if (value !== undefined && (value !== '' || split === -1)) return value;
  if (split !== -1) return body.slice(split + 2);
  return fail(
    `the environment variable ${name} is not set and \${${inner}} has no default; set it, or write \${${name}:-default}`,
  );
}

/** Joins parts whose inputs have been answered. */
export function joinParts(parts: readonly Part[], answers: ReadonlyMap<string, string>): string {
  return parts.map((part) => (typeof part === 'string' ? part : answers.get(part.input)!)).join('');
}

/** The `${input:id}` ids among the parts. */
export function inputsOf(parts: readonly Part[]): string[] {
  return parts
    .filter((part): part is { input: string } => typeof part !== 'string')
    .map((part) => part.input);
}
