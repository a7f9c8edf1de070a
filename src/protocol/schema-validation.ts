/**
 * Compiled-once validation of values against schemas a server sent (a tool's `outputSchema`, an
 * elicitation's `requestedSchema`), with the validator pluggable (`ClientOptions.validateSchema`).
 * The default is `@cfworker/json-schema`, loaded on first use: 2020-12 unless `$schema` names a
 * draft; a `$ref` outside the schema is never fetched (the schema is reported unusable instead).
 * Schemas are read, never changed: the compiled form is kept by the schema's JSON text (the same
 * schema arrives as a new object in every request), at most MAX_COMPILED_SCHEMAS, oldest out first.
 */
import type { SchemaCheck } from './json-schema.js';

export type { SchemaCheck, SchemaError } from './json-schema.js';

/** Checks `value` against `schema`; may be async. Bring your own by `ClientOptions.validateSchema`. */
export type SchemaValidator = (
  schema: object | boolean,
  value: unknown,
) => SchemaCheck | Promise<SchemaCheck>;

type Draft = '4' | '7' | '2019-09' | '2020-12';
type Compiled = { validate(value: unknown): SchemaCheck };

function draftOf(schema: unknown): Draft | undefined {
  const declared = (schema as { $schema?: unknown } | null)?.$schema;
  if (declared === undefined) return '2020-12';
  if (typeof declared !== 'string') return undefined;
  if (/draft-04/.test(declared)) return '4';
  if (/draft-0[67]/.test(declared)) return '7';
  if (/2019-09/.test(declared)) return '2019-09';
  if (/2020-12/.test(declared)) return '2020-12';
  return undefined;
}

let library: Promise<typeof import('@cfworker/json-schema')> | undefined;
/** Compiled schemas kept at most. */
export const MAX_COMPILED_SCHEMAS = 256;
const compiled = new Map<string, Compiled>();
let compilations = 0;

/** How many schemas the default validator has compiled (each one once). */
export function compiledSchemaCount(): number {
  return compilations;
}

async function compile(schema: object | boolean): Promise<Compiled> {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached) return cached;
  library ??= import('@cfworker/json-schema');
  const { Validator } = await library;
  const draft = draftOf(schema);
  let entry: Compiled;
  if (draft === undefined) {
    const declared = String((schema as { $schema?: unknown }).$schema);
    entry = { validate: () => ({ valid: 'unknown', reason: `unsupported JSON Schema dialect ${declared}` }) };
  } else {
    compilations++;
    const validator = new Validator(schema as object, draft, false);
    entry = {
      validate(value) {
        try {
          const result = validator.validate(value);
          if (result.valid) return { valid: true };
          return {
            valid: false,
            errors: result.errors.map((error) => ({
              location: error.instanceLocation,
              keyword: error.keyword,
              message: error.error,
            })),
          };
        } catch (error) {
          // e.g. an unresolved (external) $ref: never fetched, the schema is unusable.
          return { valid: 'unknown', reason: (error as Error).message.split('\n')[0]! };
        }
      },
    };
  }
  compiled.set(key, entry);
  if (compiled.size > MAX_COMPILED_SCHEMAS) compiled.delete(compiled.keys().next().value!);
  return entry;
}

/** The default SchemaValidator: @cfworker/json-schema, each schema compiled once. */
export const defaultSchemaValidator: SchemaValidator = async (schema, value) =>
  (await compile(schema)).validate(value);

/** The errors of a failed check as one line: `#/count: ...; #/name: ...` (at most 5). */
export function describeSchemaErrors(check: SchemaCheck): string {
  if (check.valid === true) return 'valid';
  if (check.valid === 'unknown') return `the schema cannot be used: ${check.reason}`;
  const shown = check.errors.filter((error) => error.keyword !== 'properties').slice(0, 5);
  return (shown.length ? shown : check.errors.slice(0, 5))
    .map((error) => `${error.location}: ${error.message}`)
    .join('; ');
}
