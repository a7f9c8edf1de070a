import { McpError, ProtocolError, UsageError } from '../errors.js';
import type { GetPromptResult, Prompt } from '../protocol/results.js';
import { describe, isPlainObject } from '../validate.js';

type DeclaredArgument = NonNullable<Prompt['arguments']>[number];

/**
 * The arguments each prompt declares in `prompts/list`, and the check of a `prompts/get` call's
 * arguments against them before it is sent (the spec's "MUST validate prompt inputs"). Kept per
 * session; a list change forgets them.
 */
export class PromptArguments {
  /** Undefined until the prompts of this session were listed. */
  #declared: Map<string, readonly DeclaredArgument[]> | undefined;
  readonly #server: string;

  constructor(server: string) {
    this.#server = server;
  }

  /** Whether the prompts of this session were listed (so a declaration can be looked up). */
  get listed(): boolean {
    return this.#declared !== undefined;
  }

  /** Reads the prompts of one prompts/list page (or all pages merged). */
  remember(result: unknown): void {
    const prompts = (result as { prompts?: unknown } | null)?.prompts;
    if (!Array.isArray(prompts)) return;
    this.#declared ??= new Map();
    for (const prompt of prompts) {
      if (typeof prompt?.name !== 'string') continue;
      const declared = Array.isArray(prompt.arguments) ? prompt.arguments : [];
      this.#declared.set(
        prompt.name,
        declared.filter((argument: unknown) => typeof (argument as DeclaredArgument)?.name === 'string'),
      );
    }
  }

  clear(): void {
    this.#declared = undefined;
  }

  /**
   * Throws UsageError (nothing sent) for arguments that are not strings, a required argument
   * missing, or a name the prompt does not declare. A prompt the server did not list is left to
   * the server.
   */
  check(params: unknown): void {
    const fail = (text: string) => new UsageError(`prompts/get: ${text}`, { server: this.#server });
    if (!isPlainObject(params) || typeof params.name !== 'string') {
      throw fail(`params must be { name: string, arguments?: { [name]: string } }, got ${describe(params)}`);
    }
    const { name, arguments: given = {} } = params;
    if (!isPlainObject(given))
      throw fail(`the arguments of ${name} must be an object, got ${describe(given)}`);
    for (const [key, value] of Object.entries(given)) {
      if (typeof value !== 'string') {
        throw fail(`argument ${key} of ${name} must be a string, got ${describe(value)}`);
      }
    }
    const declared = this.#declared?.get(name);
    if (declared === undefined) return;
    const names = declared.map((argument) => argument.name);
    const declaredNames = names.length > 0 ? `it declares ${names.join(', ')}` : 'it declares none';
    const unknown = Object.keys(given).filter((key) => !names.includes(key));
    if (unknown.length > 0) {
      throw fail(`${name} has no argument ${unknown.join(', ')} (${declaredNames})`);
    }
    const missing = declared.filter((argument) => argument.required === true && !(argument.name in given));
    if (missing.length > 0) {
      throw fail(
        `${name} needs the argument${missing.length > 1 ? 's' : ''} ${missing.map((a) => a.name).join(', ')} (${declaredNames})`,
      );
    }
  }
}

const ROLES = ['user', 'assistant'];

/** Why a content block is not one of the protocol's, or undefined when it is. */
function contentProblem(block: unknown): string | undefined {
  if (!isPlainObject(block)) return `must be a content block, got ${describe(block)}`;
  const strings = (...keys: string[]) => {
    const absent = keys.filter((key) => typeof block[key] !== 'string');
    return absent.length > 0
      ? `(${String(block.type)}) needs the string${absent.length > 1 ? 's' : ''} ${absent.join(', ')}`
      : undefined;
  };
  switch (block.type) {
    case 'text':
      return strings('text');
    case 'image':
    case 'audio':
      return strings('data', 'mimeType');
    case 'resource_link':
      return strings('uri', 'name');
    case 'resource': {
      const resource = block.resource;
      if (!isPlainObject(resource) || typeof resource.uri !== 'string')
        return '(resource) needs resource.uri';
      if (typeof resource.text !== 'string' && typeof resource.blob !== 'string')
        return '(resource) needs resource.text or resource.blob';
      return undefined;
    }
    default:
      return `has type ${describe(block.type)}, not text, image, audio, resource_link or resource`;
  }
}

/**
 * The result of `prompts/get` as a GetPromptResult (the spec's "MUST validate prompt outputs"),
 * or a ProtocolError naming the first thing wrong: nothing of an invalid result is returned.
 */
export function readGetPromptResult(result: unknown, name: string, server: string): GetPromptResult {
  const problem = getPromptProblem(result);
  if (problem === undefined) return result as GetPromptResult;
  throw new ProtocolError(`prompts/get ${name} returned an invalid GetPromptResult: ${problem}`, { server });
}

function getPromptProblem(result: unknown): string | undefined {
  if (!isPlainObject(result)) return `it is ${describe(result)}, not an object`;
  if (result.description !== undefined && typeof result.description !== 'string') {
    return `description must be a string, got ${describe(result.description)}`;
  }
  if (!Array.isArray(result.messages)) return `messages must be an array, got ${describe(result.messages)}`;
  for (const [index, message] of result.messages.entries()) {
    if (!isPlainObject(message)) return `messages[${index}] must be an object, got ${describe(message)}`;
    if (!ROLES.includes(message.role as string)) {
      return `messages[${index}].role must be 'user' or 'assistant', got ${describe(message.role)}`;
    }
    const problem = contentProblem(message.content);
    if (problem) return `messages[${index}].content ${problem}`;
  }
  return undefined;
}

/**
 * Checks a `prompts/get` call's arguments, listing the prompts first if this session never did
 * (a server that cannot list them leaves the check to itself): UsageError, nothing sent.
 */
export async function checkPromptCall(
  prompts: PromptArguments,
  params: { name: string; arguments?: Record<string, string> },
  listPrompts: () => Promise<unknown>,
): Promise<void> {
  prompts.check(params);
  if (prompts.listed) return;
  const listed = await listPrompts().catch((error: unknown) => {
    if (error instanceof McpError) return undefined;
    throw error;
  });
  if (listed) prompts.check(params);
}
