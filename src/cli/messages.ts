import type { CliArguments } from './cli-arguments.js';

/**
 * The library's error messages in the command's words: a flag (`--cwd`) or the config entry's own
 * key (`cwd`) instead of a library key path (`transport.cwd`), the server named once, and no
 * prefix that only says which library hook failed.
 */

/** Who a message is about: the Client's name, and for a config entry its file and name. */
export interface MessageContext {
  /** The Client's name, which the library puts before its messages (`server: ...`). */
  name: string;
  /** `--config`, when the server is an entry of that file. */
  file?: string | undefined;
  /** `--server`: the entry's name. */
  entry?: string | undefined;
}

/** The context of the command line's server; its name is the one clientFor gives the Client. */
export function messageContextOf(cli: CliArguments): MessageContext {
  const name = cli.server ?? (cli.url !== undefined ? new URL(cli.url).host : 'server');
  return { name, file: cli.config, entry: cli.server };
}

/** Library option paths under `transport.`, by the flag that sets them on the command line. */
const FLAGS: Array<[RegExp, string]> = [
  [/\btransport\.cwd\b/g, '--cwd'],
  [/\btransport\.env\.([\w.-]+)/g, '--env $1'],
  [/\btransport\.env\b/g, '--env'],
  [/\btransport\.stderr\.file\b/g, '--stderr'],
  [/\btransport\.stderrTail\b/g, '--stderr-tail'],
  [/\btransport\.stderr\b/g, '--stderr'],
  [/\btransport\.maxMessageBytes\b/g, '--max-message-bytes'],
  [/\btransport\.maxJunkLines\b/g, '--max-junk-lines'],
  [/\btransport\.headers\.([\w-]+)/g, '--header $1'],
  [/\btransport\.command\b/g, 'the server command'],
  [/\btransport\.args\[(\d+)\]/g, 'argument $1 of the server command'],
];

/** A hook's failure says only that the hook failed: the reason after it is the message. */
const HOOK_PREFIX = /\bauth\.onAuthorizationUrl failed: /g;

/** The library's advice to raise an option the command has no flag for: the command's own advice. */
const AUTHORIZATION_TIMEOUT_ADVICE = /; try again, or raise (?:transport\.)?auth\.authorizationTimeout\b/g;
const RUN_AGAIN = '; run the command again to get a new authorization URL';

/** What every message loses, whoever it is about: hook prefixes and advice about options without a flag. */
function commandAdvice(message: string): string {
  return message.replace(HOOK_PREFIX, '').replace(AUTHORIZATION_TIMEOUT_ADVICE, RUN_AGAIN);
}

/** `text` without the server's name before it: the library may have put it there more than once. */
function withoutName(text: string, name: string): string {
  return text.replace(new RegExp(`^(?:${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: )+`), '');
}

/** `message` in the command's words (see the module comment). */
export function inCommandWords(message: string, context: MessageContext): string {
  let text = withoutName(commandAdvice(message), context.name);
  // A config file's own messages (`mcp.json: mcpServers.x.cwd: ...`) are in the file's words already.
  if (context.file !== undefined && text.includes(context.file)) return text;
  if (context.entry !== undefined) {
    text = text.replace(/\btransport\.([\w.[\]-]+)/g, '"$1"');
    return context.file !== undefined
      ? `${context.file}: ${context.entry}: ${text}`
      : `${context.entry}: ${text}`;
  }
  for (const [path, flag] of FLAGS) text = text.replace(path, flag);
  return text.replace(/\btransport\.([\w.[\]-]+)/g, '$1');
}

/** The same for one server of a pool, whose name a table or a line shows already. */
export function poolMessage(message: string, server: string): string {
  return withoutName(commandAdvice(message), server).replace(/\btransport\.([\w.[\]-]+)/g, '"$1"');
}

/** A repeated error code: a server whose message starts with its code (`MCP error -32602: ...`). */
export function withoutRepeatedCode(message: string, code: number): string {
  return message.replace(new RegExp(`^(?:MCP )?error ${code}:\\s*`, 'i'), '');
}
