import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { describe, rejectUnknownKeys } from '../validate.js';
import { buildTransport, type ConfigTransport, ENTRY_KEYS, entryInputs, readEntry } from './entry.js';
import { expandHome } from './home.js';
import { parseJsonc } from './jsonc.js';

/** A VS Code `inputs` entry: what the host should ask the user for. */
export interface ConfigInput {
  /** The id `${input:id}` names. */
  readonly id: string;
  /** `promptString`, `pickString` or `command` (VS Code's kinds). */
  readonly type: string;
  /** The question to show the user. */
  readonly description?: string;
  /** Whether the answer is secret (hide it while typed). */
  readonly password?: boolean;
  /** The choices of a `pickString`. */
  readonly options?: readonly string[];
  /** The answer to suggest. */
  readonly default?: string;
}

/** Answers `${input:id}`: called once per id and file, when the first server using it starts. */
export type InputResolver = (input: ConfigInput & { readonly server: string }) => string | Promise<string>;

/** The options of {@link loadConfigFile} and {@link parseConfig}. */
export interface LoadConfigOptions {
  /** Environment for `${VAR}` and `${env:VAR}`. @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Answers `${input:id}`; without it an entry that uses one is refused. */
  readonly input?: InputResolver;
  /** `${workspaceFolder}`. @defaultValue the file's folder, or its parent for a file in `.vscode`, `.cursor` or `.claude` */
  readonly workspaceFolder?: string;
}

/** One server of a config file. */
export interface ConfigServer {
  /** Its key in the file. */
  readonly name: string;
  /** `"disabled": true` in the file: listed, never started. */
  readonly disabled: boolean;
  /** `"lazy": true` or `false` in the file: started on first use, or with the pool; undefined: the pool's `lazy`. */
  readonly lazy: boolean | undefined;
  /** What is wrong with this entry, if anything; the other entries are unaffected. */
  readonly error: ConfigError | undefined;
  /** The `${input:id}` ids it uses. */
  readonly inputs: readonly string[];
  /** The transport spec, when no input is needed (built at load). */
  readonly resolved: ConfigTransport | undefined;
  /** The transport spec, asking the host for any input first (once per id and file). Rejects with `error`. */
  transport(): Promise<ConfigTransport>;
}

/** A config file, read: its servers in file order, and what was ignored. */
export interface LoadedConfig {
  /** The path as given (with `~` expanded). */
  readonly file: string;
  /** `mcpServers` (Claude Desktop, Cursor, Claude Code) or `servers` (VS Code). */
  readonly format: 'mcpServers' | 'servers';
  /** Its servers, in file order. */
  readonly servers: readonly ConfigServer[];
  /** Keys no conduit-mcp setting uses (ignored), each naming file, server and key. */
  readonly warnings: readonly string[];
}

/**
 * Reads an MCP config file. Throws ConfigError for what spoils the whole file; an entry's own problem is its `error`.
 *
 * @throws {@link ConfigError} when the file cannot be read, is not valid JSON(C), or its shape is wrong (see {@link parseConfig}).
 */
export function loadConfigFile(file: string, options: LoadConfigOptions = {}): LoadedConfig {
  const target = expandHome(file);
  let text: string;
  try {
    text = readFileSync(target, 'utf8');
  } catch (error) {
    throw new ConfigError('config', `${target}: cannot read the file: ${(error as Error).message}`);
  }
  return parseConfig(text, target, options);
}

/**
 * Parses config text as `loadConfigFile` does; `file` names it in messages and anchors relative paths.
 *
 * @throws {@link ConfigError} when the text is not valid JSON(C), not an object, has both `mcpServers` and `servers`, or a part of it has the wrong shape; an entry's own problem is its `error` instead.
 */
export function parseConfig(text: string, file: string, options: LoadConfigOptions = {}): LoadedConfig {
  const parsed = parseJsonc(text);
  if ('error' in parsed) throw new ConfigError('config', `${file}: not valid JSON: ${parsed.error}`);
  const root = parsed.value;
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    throw new ConfigError('config', `${file}: must hold a JSON object, got ${describe(root)}`);
  }
  const document = root as Record<string, unknown>;
  if (document.mcpServers !== undefined && document.servers !== undefined) {
    throw new ConfigError(
      'config',
      `${file}: has both "mcpServers" and "servers"; keep one (mcpServers: Claude Desktop, Cursor, Claude Code; servers: VS Code)`,
    );
  }
  const format = document.servers !== undefined ? 'servers' : 'mcpServers';
  const servers = document[format];
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
    throw new ConfigError(
      format,
      `${file}: ${servers === undefined ? 'has no "mcpServers" (nor VS Code\'s "servers") object' : `${format} must be an object of servers, got ${describe(servers)}`}`,
    );
  }
  const directory = path.dirname(path.resolve(file));
  const inputs = readInputs(document.inputs, file);
  const scope = {
    env: options.env ?? process.env,
    userHome: homedir(),
    workspaceFolder: options.workspaceFolder ?? defaultWorkspace(directory),
    inputIds: inputs ? new Set(inputs.keys()) : undefined,
    canResolveInputs: options.input !== undefined,
  };
  const answers = new Map<string, Promise<string>>();
  const ask = (id: string, server: string): Promise<string> => {
    let answer = answers.get(id);
    if (answer === undefined) {
      const request = { ...(inputs?.get(id) ?? { id, type: 'promptString' }), server };
      answer = Promise.resolve()
        .then(() => options.input!(request))
        .then((value) => {
          if (typeof value !== 'string') {
            throw new ConfigError(
              'input',
              `${file}: the input callback answered ${describe(value)} for \${input:${id}}; it must return a string`,
            );
          }
          return value;
        });
      answers.set(id, answer);
      // A refused or failed answer is asked again on the next start (a pool's restart()).
      answer.catch(() => answers.delete(id));
    }
    return answer;
  };
  const warnings: string[] = [];
  const result: ConfigServer[] = Object.entries(servers).map(([name, raw]) => {
    const key = `${format}.${name}`;
    try {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        throw new ConfigError(key, `${file}: ${key}: must be an object, got ${describe(raw)}`);
      }
      const entry = raw as Record<string, unknown>;
      warnings.push(...unknownKeys(entry, key, file));
      if (entry.disabled !== undefined && typeof entry.disabled !== 'boolean') {
        throw new ConfigError(
          `${key}.disabled`,
          `${file}: ${key}.disabled: must be true or false, got ${describe(entry.disabled)}`,
        );
      }
      if (entry.lazy !== undefined && typeof entry.lazy !== 'boolean') {
        throw new ConfigError(
          `${key}.lazy`,
          `${file}: ${key}.lazy: must be true (start on first use) or false, got ${describe(entry.lazy)}`,
        );
      }
      const disabled = entry.disabled === true;
      const lazy = entry.lazy as boolean | undefined;
      const template = readEntry(entry, key, { file, directory, scope, warnings });
      const ids = entryInputs(template);
      return {
        name,
        disabled,
        lazy,
        error: undefined,
        inputs: ids,
        resolved: ids.length === 0 ? buildTransport(template, new Map(), directory) : undefined,
        async transport() {
          const values = await Promise.all(ids.map((id) => ask(id, name)));
          return buildTransport(template, new Map(ids.map((id, i) => [id, values[i]!])), directory);
        },
      };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const disabled = (raw as { disabled?: unknown } | null)?.disabled === true;
      return {
        name,
        disabled,
        lazy: undefined,
        error,
        inputs: [],
        resolved: undefined,
        transport: () => Promise.reject(error),
      };
    }
  });
  return { file, format, servers: result, warnings };
}

function unknownKeys(entry: Record<string, unknown>, key: string, file: string): string[] {
  const found: string[] = [];
  for (const name of Object.keys(entry)) {
    if ((ENTRY_KEYS as readonly string[]).includes(name)) continue;
    try {
      rejectUnknownKeys({ [name]: true }, ENTRY_KEYS, key);
    } catch (error) {
      found.push(
        `${file}: ${(error as Error).message.replace(' is not an option', ' is not a setting conduit-mcp uses (ignored)')}`,
      );
    }
  }
  return found;
}

function readInputs(value: unknown, file: string): Map<string, ConfigInput> | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    throw new ConfigError('inputs', `${file}: inputs: must be an array, got ${describe(value)}`);
  }
  const inputs = new Map<string, ConfigInput>();
  value.forEach((item, index) => {
    const id = (item as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || id === '') {
      throw new ConfigError(
        `inputs[${index}].id`,
        `${file}: inputs[${index}].id: must be a non-empty string, got ${describe(id)}`,
      );
    }
    inputs.set(id, { type: 'promptString', ...(item as object), id } as ConfigInput);
  });
  return inputs;
}

function defaultWorkspace(directory: string): string {
  const base = path.basename(directory);
  return base === '.vscode' || base === '.cursor' || base === '.claude' ? path.dirname(directory) : directory;
}
