/**
 * JSON Schema validation (2020-12 by default; the drafts a schema names with `$schema` too) for
 * checking values against schemas servers send: tool input schemas, elicitation forms. Backed by
 * `@cfworker/json-schema` through schema-validation.ts, loaded on first use only. No network: a
 * `$ref` outside the schema is never fetched; such a schema is reported as unusable instead.
 */

export interface SchemaError {
  /** JSON Pointer of the value that failed, as a fragment: `#`, `#/count`, `#/tags/0`. */
  readonly location: string;
  /** The keyword that failed: `type`, `required`, `anyOf`, `additionalProperties`, ... */
  readonly keyword: string;
  /** What is wrong, in words. */
  readonly message: string;
}

/** What {@link checkSchema} found: valid, invalid with every error, or `'unknown'` when the schema cannot be used. */
export type SchemaCheck =
  | {
      /** The value matches. */
      readonly valid: true;
    }
  | {
      /** The value does not match. */
      readonly valid: false;
      /** Every error found, not only the first. */
      readonly errors: readonly SchemaError[];
    }
  /** The schema itself cannot be used (an unresolvable `$ref`, an invalid keyword value). */
  | {
      /** Not known: the schema could not be applied. */
      readonly valid: 'unknown';
      /** Why. */
      readonly reason: string;
    };

/**
 * Validates `value` against `schema`, collecting every error (not only the first): the default
 * validator of schema-validation.ts, so each schema is compiled once wherever it is checked.
 */
export async function checkSchema(schema: unknown, value: unknown): Promise<SchemaCheck> {
  if ((typeof schema !== 'object' || schema === null) && typeof schema !== 'boolean') {
    return { valid: 'unknown', reason: 'the schema is not an object' };
  }
  const { defaultSchemaValidator } = await import('./schema-validation.js');
  return defaultSchemaValidator(schema, value);
}
