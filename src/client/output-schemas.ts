import { ProtocolError } from '../errors.js';
import type { CallToolResult } from '../protocol/results.js';
import { describeSchemaErrors, type SchemaValidator } from '../protocol/schema-validation.js';

/**
 * The `outputSchema` of each tool the server listed, and the check of a call's
 * `structuredContent` against it (skipped for `isError` results and tools never listed).
 * Schemas are kept as the server sent them, unchanged.
 */
export class OutputSchemas {
  /** Made on the first schema: a server without output schemas costs none. */
  #schemas: Map<string, object> | undefined;
  readonly #server: string;
  readonly #validate: SchemaValidator;

  constructor(server: string, validate: SchemaValidator) {
    this.#server = server;
    this.#validate = validate;
  }

  /** Reads the tools of one tools/list page (or all pages merged). */
  remember(result: unknown): void {
    const tools = (result as { tools?: unknown } | null)?.tools;
    if (!Array.isArray(tools)) return;
    for (const tool of tools) {
      if (typeof tool?.name !== 'string') continue;
      if (typeof tool.outputSchema === 'object' && tool.outputSchema !== null) {
        this.#schemas ??= new Map();
        this.#schemas.set(tool.name, tool.outputSchema);
      } else {
        this.#schemas?.delete(tool.name);
      }
    }
  }

  clear(): void {
    this.#schemas = undefined;
  }

  /**
   * Throws ProtocolError when a tool with an outputSchema returned no or non-matching
   * structuredContent. Returns the result itself, not a promise, when there is nothing to check.
   */
  check(name: string, result: CallToolResult): CallToolResult | Promise<CallToolResult> {
    const schema = this.#schemaToCheck(name, result);
    return schema === undefined ? result : this.#checkStructured(name, schema, result);
  }

  #schemaToCheck(name: string, result: CallToolResult): object | undefined {
    const schema = this.#schemas?.get(name);
    return schema === undefined || result?.isError === true ? undefined : schema;
  }

  async #checkStructured(name: string, schema: object, result: CallToolResult): Promise<CallToolResult> {
    if (result.structuredContent === undefined) {
      throw new ProtocolError(`tool ${name} declares an outputSchema but returned no structuredContent`, {
        server: this.#server,
      });
    }
    const check = await this.#validate(schema, result.structuredContent);
    if (check.valid === false) {
      throw new ProtocolError(
        `the structuredContent of tool ${name} does not match its outputSchema: ${describeSchemaErrors(check)}`,
        { server: this.#server },
      );
    }
    return result;
  }
}
