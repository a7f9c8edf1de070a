// Validates wire messages against the official MCP JSON schemas, verbatim copies kept in
// test/data/spec (see its README.md): 2026-07-28 for the modern era, 2025-11-25 for the legacy one.
import { AssertionError } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

export type Era = 'modern' | 'legacy';

const repoRoot = path.resolve(import.meta.dirname, '../..');

/** Where each era's schema is read from (the first time a type of that file is needed). */
export const schemaFiles: Record<Era, string> = {
  modern: path.join(repoRoot, 'test/data/spec/schema-2026-07-28.json'),
  legacy: path.join(repoRoot, 'test/data/spec/schema-2025-11-25.json'),
};

interface LoadedSchema {
  ajv: Ajv2020;
  types: Set<string>;
  validators: Map<string, ValidateFunction>;
}

const loaded = new Map<string, LoadedSchema>(); // by file

function load(era: Era): LoadedSchema {
  const file = schemaFiles[era];
  const cached = loaded.get(file);
  if (cached) return cached;
  if (!existsSync(file)) {
    throw new Error(
      `the ${era} MCP schema is missing: looked for ${file} (test/data/spec holds the official schemas; restore it from git)`,
    );
  }
  const schema = JSON.parse(readFileSync(file, 'utf8')) as { $defs?: Record<string, unknown> };
  // The schema has no $id: register it under the era's name, then reach each type as `<era>#/$defs/<type>`.
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema(schema, era);
  const entry = { ajv, types: new Set(Object.keys(schema.$defs ?? {})), validators: new Map() };
  loaded.set(file, entry);
  return entry;
}

function validator(era: Era, type: string): ValidateFunction {
  const schema = load(era);
  let validate = schema.validators.get(type);
  if (validate) return validate;
  if (!schema.types.has(type))
    throw new Error(`the ${era} MCP schema (${schemaFiles[era]}) has no type ${type}`);
  validate = schema.ajv.getSchema(`${era}#/$defs/${type}`);
  if (!validate) throw new Error(`Ajv could not compile ${type} of the ${era} MCP schema`);
  schema.validators.set(type, validate);
  return validate;
}

/**
 * Asserts that `message` is valid against `#/$defs/<type>` of the era's official MCP schema
 * (modern: 2026-07-28, legacy: 2025-11-25). Throws an AssertionError listing Ajv's errors.
 * @param type a `$defs` name such as `CallToolRequest`; default `JSONRPCMessage`.
 */
export function validateMessage(message: unknown, era: Era, type = 'JSONRPCMessage'): void {
  const validate = validator(era, type);
  if (validate(message)) return;
  const errors = validate.errors ?? [];
  const details = errors.map(
    (error) => `  ${error.instancePath || '(root)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
  );
  throw new AssertionError({
    message: `not a valid ${type} (${era} MCP schema): ${inspect(message, { depth: 6, breakLength: Number.POSITIVE_INFINITY, maxStringLength: 200 })}\n${details.join('\n')}`,
    actual: errors,
    expected: [],
    operator: 'validateMessage',
  });
}
