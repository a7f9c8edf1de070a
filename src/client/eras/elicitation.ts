/**
 * Elicitation rules shared by both eras: a request without `mode` is a form; a mode the client
 * did not declare is refused with -32602; an accepted form answer gets the schema's defaults for
 * the fields the handler left out and is checked against `requestedSchema` before it is sent.
 */
import { McpError, UsageError } from '../../errors.js';
import { INVALID_PARAMS } from '../../jsonrpc/error-codes.js';
import {
  defaultSchemaValidator,
  describeSchemaErrors,
  type SchemaValidator,
} from '../../protocol/schema-validation.js';
import type { ElicitationHandler } from '../../protocol/types.js';

/** An elicitation's mode: a form the user fills in, or a URL the user visits. */
export type ElicitationMode = 'form' | 'url';
export const ELICITATION_MODES: readonly ElicitationMode[] = ['form', 'url'];

const ACTIONS = new Set(['accept', 'decline', 'cancel']);
const DEFAULT_TYPES = new Set(['string', 'integer', 'number', 'boolean']);

export interface ElicitationContext {
  readonly name: string;
  readonly handler: ElicitationHandler;
  readonly modes: readonly ElicitationMode[];
  readonly validateSchema?: SchemaValidator;
}

/** The mode of a request (absent: form), or McpError -32602 when it was not declared. */
export function elicitationMode(
  params: Record<string, unknown>,
  modes: readonly ElicitationMode[],
): ElicitationMode {
  const mode = params.mode ?? 'form';
  if (typeof mode === 'string' && (modes as readonly string[]).includes(mode)) return mode as ElicitationMode;
  throw new McpError(
    INVALID_PARAMS,
    `elicitation mode ${JSON.stringify(mode)} is not supported by this client (declared: ${modes.join(', ')})`,
  );
}

/** The defaults of a flat form schema's primitive and enum fields, by property name. */
export function schemaDefaults(schema: unknown): Record<string, unknown> {
  const properties = (schema as { properties?: unknown } | null)?.properties;
  const defaults: Record<string, unknown> = {};
  if (typeof properties !== 'object' || properties === null) return defaults;
  for (const [key, property] of Object.entries(properties as Record<string, unknown>)) {
    if (typeof property !== 'object' || property === null || !Object.hasOwn(property, 'default')) continue;
    const {
      type,
      default: value,
      enum: choices,
    } = property as { type?: unknown; default: unknown; enum?: unknown };
    const primitive = typeof type === 'string' && DEFAULT_TYPES.has(type);
    if (primitive || Array.isArray(choices) || (type === 'array' && Array.isArray(value)))
      defaults[key] = value;
  }
  return defaults;
}

/** Runs the user's handler for one elicitation and returns the checked ElicitResult. */
export async function answerElicitation(
  context: ElicitationContext,
  params: Record<string, unknown>,
  signal: AbortSignal,
): Promise<unknown> {
  const mode = elicitationMode(params, context.modes);
  const request = { ...params, mode };
  const answer = (await context.handler(request, { server: context.name, signal })) as
    | { action?: unknown; content?: unknown }
    | null
    | undefined;
  if (typeof answer !== 'object' || answer === null || !ACTIONS.has(answer.action as string)) {
    throw new UsageError(
      `handlers.elicitation must resolve with { action: 'accept' | 'decline' | 'cancel', content? }, got ${JSON.stringify(answer)}`,
    );
  }
  if (mode === 'url' || answer.action !== 'accept') {
    const { content: _content, ...rest } = answer;
    return rest;
  }
  if (answer.content !== undefined && (typeof answer.content !== 'object' || answer.content === null)) {
    throw new UsageError('handlers.elicitation accepted a form with content that is not an object');
  }
  const content = { ...schemaDefaults(params.requestedSchema), ...(answer.content as object | undefined) };
  const schema = params.requestedSchema;
  if (typeof schema === 'object' && schema !== null) {
    const check = await (context.validateSchema ?? defaultSchemaValidator)(schema, content);
    // A schema the validator cannot use (unknown dialect, external $ref) is not held against the answer.
    if (check.valid === false) {
      throw new UsageError(
        `handlers.elicitation answered content that does not match the server's requestedSchema (${describeSchemaErrors(check)}); fix the answer or decline`,
      );
    }
  }
  return { ...answer, content };
}

export interface UrlElicitation extends Record<string, unknown> {
  mode: 'url';
  elicitationId: string;
  url: string;
  message: string;
}

/** The URL elicitations of a -32042 error's `data.elicitations`, or undefined if malformed. */
export function urlElicitationsOf(error: McpError): UrlElicitation[] | undefined {
  const list = (error.data as { elicitations?: unknown } | undefined)?.elicitations;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const valid = list.every(
    (item) =>
      typeof item === 'object' &&
      item !== null &&
      typeof item.elicitationId === 'string' &&
      typeof item.url === 'string' &&
      typeof item.message === 'string',
  );
  return valid ? list.map((item) => ({ ...item, mode: 'url' as const })) : undefined;
}
