/**
 * JSON Schema validation (2020-12 by default; the drafts a schema names with `$schema` too) for
 * checking values against schemas servers send: tool input schemas, elicitation forms. Backed by
 * `@cfworker/json-schema`, loaded on first use only. No network: a `$ref` outside the schema is
 * never fetched; such a schema is reported as unusable instead.
 */

export interface SchemaError {
  /** JSON Pointer of the value that failed, as a fragment: `#`, `#/count`, `#/tags/0`. */
  readonly location: string;
  /** The keyword that failed: `type`, `required`, `anyOf`, `additionalProperties`, ... */
  readonly keyword: string;
  readonly message: string;
}

export type SchemaCheck =
  | { readonly valid: true }
  | { readonly valid: false; readonly errors: readonly SchemaError[] }
  /** The schema itself cannot be used (an unresolvable `$ref`, an invalid keyword value). */
  | { readonly valid: 'unknown'; readonly reason: string };

type Draft = '4' | '7' | '2019-09' | '2020-12';

function draftOf(schema: unknown): Draft {
  const declared = (schema as { $schema?: unknown } | null)?.$schema;
  if (typeof declared !== 'string') return '2020-12';
  if (declared.includes('draft-04')) return '4';
  if (declared.includes('draft-06') || declared.includes('draft-07')) return '7';
  if (declared.includes('2019-09')) return '2019-09';
  return '2020-12';
}

let library: Promise<typeof import('@cfworker/json-schema')> | undefined;

/** Validates `value` against `schema`, collecting every error (not only the first). */
export async function checkSchema(schema: unknown, value: unknown): Promise<SchemaCheck> {
  library ??= import('@cfworker/json-schema');
  const { Validator } = await library;
  if (typeof schema !== 'object' && typeof schema !== 'boolean') {
    return { valid: 'unknown', reason: 'the schema is not an object' };
  }
  try {
    const result = new Validator(schema as object, draftOf(schema), false).validate(value);
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
    return { valid: 'unknown', reason: (error as Error).message.split('\n')[0]! };
  }
}
