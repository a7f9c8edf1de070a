/**
 * One tool's input schema in the form one provider takes, checked against that provider's
 * documented subset before it is offered: the rewrite (schema/*.ts) and the check (checkers/*.ts)
 * are written apart, so a rewrite that slips is caught and the tool left out instead of refused
 * by the provider or, worse, silently misread.
 */
import type { Tool } from '../index.js';
import { checkGemini } from './checkers/gemini.js';
import { checkJsonSchemaObject } from './checkers/json-schema-object.js';
import { checkOpenAIStrict } from './checkers/openai-strict.js';
import { NotRepresentableError, toGeminiParameters } from './schema/gemini.js';
import { inlineRefs } from './schema/inline-refs.js';
import type { JsonSchema, SchemaObject } from './schema/json-schema-node.js';
import { NotPortableError, toPortableSchema } from './schema/portable.js';
import { flattenRootUnion } from './schema/root-union.js';
import { NotStrictError, toStrictSchema } from './schema/strict.js';
import type { Provider } from './types.js';

/** Tool names every provider takes (OpenAI, Anthropic, the pool's own rule). */
const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** Gemini's rule: https://ai.google.dev/api/caching#FunctionDeclaration (starts with a letter or an underscore). */
const GEMINI_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

/** A tool's parameters for a provider: the schema (undefined: takes no arguments), strict or not; or why not. */
export type Converted =
  | {
      /** The converted schema; undefined when the tool takes no arguments. */
      readonly parameters: SchemaObject | undefined;
      /** Whether the schema meets OpenAI's strict mode (`strict: true` is offered). */
      readonly strict: boolean;
      /** Why strict mode is not offered, when it was asked for and the schema does not allow it. */
      readonly note?: string;
    }
  | {
      /** Why the tool cannot be offered to this provider (its name, or its schema). */
      readonly error: string;
    };

/** Options of the conversion. */
export interface ConvertOptions {
  /** OpenAI only: offer `strict: true` where the schema allows it. Default true. */
  readonly strict?: boolean;
}

/** Converts `tool`'s input schema for `provider` and checks the result against the provider's subset. */
export function convertTool(provider: Provider, tool: Tool, options: ConvertOptions = {}): Converted {
  const rule = provider === 'gemini' ? GEMINI_NAME : NAME;
  if (!rule.test(tool.name)) {
    return { error: `the name does not match ${rule.source}; a ClientPool gives provider-valid names` };
  }
  const inlined = inlineRefs(tool.inputSchema as JsonSchema);
  if ('error' in inlined) return { error: inlined.error };
  const schema = flattenRootUnion(inlined.schema);
  try {
    if (provider === 'gemini') {
      const parameters = toGeminiParameters(schema);
      return checked(checkGemini(parameters), { parameters, strict: false });
    }
    let note: string | undefined;
    if ((provider === 'openai' || provider === 'openai-responses') && options.strict !== false) {
      try {
        const parameters = toStrictSchema(schema);
        const problems = checkOpenAIStrict(parameters);
        if (problems.length === 0) return { parameters, strict: true };
        note = `offered without strict mode: ${problems.slice(0, 3).join('; ')}`;
      } catch (error) {
        if (!(error instanceof NotStrictError)) throw error;
        note = `offered without strict mode: ${error.message}`;
      }
    }
    const parameters = toPortableSchema(schema);
    const result = checked(checkJsonSchemaObject(parameters), { parameters, strict: false });
    return note !== undefined && !('error' in result) ? { ...result, note } : result;
  } catch (error) {
    if (error instanceof NotRepresentableError || error instanceof NotPortableError) {
      return { error: `the input schema cannot be represented: ${error.message}` };
    }
    throw error;
  }
}

function checked(problems: string[], converted: Converted): Converted {
  if (problems.length === 0) return converted;
  return { error: `the rewritten schema breaks the provider's rules: ${problems.slice(0, 3).join('; ')}` };
}
