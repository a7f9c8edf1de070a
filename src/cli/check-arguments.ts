import { checkSchema, type SchemaError, type Tool } from '../index.js';
import { InvalidArguments } from './exit-codes.js';
import { acceptedTypes, describeParameters, listTypes, typeOf } from './tool-arguments.js';
import { didYouMean } from './undeclared-arguments.js';

/** Keywords that only say "something below failed". */
const WRAPPERS = new Set([
  'properties',
  'anyOf',
  'oneOf',
  'allOf',
  '$ref',
  'items',
  'prefixItems',
  'additionalProperties',
  'false',
]);

function topName(location: string): string | undefined {
  const part = location.split('/')[1];
  return part === undefined ? undefined : decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Problems named by argument: missing ones, unknown ones, then each wrong one once. */
function describeErrors(tool: Tool, args: Record<string, unknown>, errors: readonly SchemaError[]): string[] {
  const root = (tool.inputSchema ?? {}) as Record<string, unknown>;
  const properties = (root.properties ?? {}) as Record<string, unknown>;
  const problems: string[] = [];
  const explained = new Set<string>();
  for (const error of errors) {
    if (error.location !== '#') continue;
    const property = /property "([^"]*)"/i.exec(error.message)?.[1];
    if (error.keyword === 'required' && property !== undefined)
      problems.push(`missing required argument ${property}`);
    if (error.keyword === 'additionalProperties' && property !== undefined) {
      problems.push(`unknown argument ${property}${didYouMean(property, tool)}`);
      explained.add(property);
    }
  }
  for (const error of errors) {
    const name = topName(error.location);
    if (name === undefined || explained.has(name)) continue;
    const types = Object.hasOwn(properties, name) ? acceptedTypes(properties[name], root) : undefined;
    const value = args[name];
    if (types && !types.has(typeOf(value))) {
      problems.push(`argument ${name} must be ${listTypes(types)}, got ${JSON.stringify(value)}`);
      explained.add(name);
      continue;
    }
    if (WRAPPERS.has(error.keyword)) continue;
    const where = error.location === `#/${name}` ? '' : ` at ${error.location.slice(1)}`;
    problems.push(`argument ${name}${where}: ${error.message}`);
    explained.add(name);
  }
  return problems;
}

/**
 * Checks a tool's arguments against its inputSchema before anything is sent, naming each
 * missing, unknown or wrong argument. A schema that cannot be used is not held against the call.
 */
export async function checkArguments(
  tool: Tool,
  args: Record<string, unknown>,
  note: (text: string) => void,
): Promise<void> {
  const check = await checkSchema(tool.inputSchema ?? { type: 'object' }, args);
  if (check.valid === true) return;
  if (check.valid === 'unknown') {
    note(
      `conduit-mcp: the input schema of ${tool.name} cannot be checked locally (${check.reason}); sending as is`,
    );
    return;
  }
  const problems = describeErrors(tool, args, check.errors);
  if (problems.length === 0)
    problems.push(check.errors[check.errors.length - 1]?.message ?? 'invalid arguments');
  const parameters = describeParameters(tool);
  throw new InvalidArguments(
    `${tool.name}: ${problems.join('; ')} (parameters: ${parameters || 'none'}; --no-validate sends them anyway)`,
  );
}
