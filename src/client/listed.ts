import type { SchemaValidator } from '../protocol/schema-validation.js';
import { OutputSchemas } from './output-schemas.js';
import { PromptArguments } from './prompts.js';
import { ToolTasks } from './tasks.js';

/**
 * What a Client learned from the lists of the current session: each tool's outputSchema and task
 * support, each prompt's arguments. Forgotten on a new session and when the list changes.
 */
export class Listed {
  readonly #name: string;
  readonly #validateSchema: SchemaValidator;
  #outputSchemas: OutputSchemas | undefined;
  #promptArguments: PromptArguments | undefined;
  #toolTasks: ToolTasks | undefined;

  constructor(name: string, validateSchema: SchemaValidator) {
    this.#name = name;
    this.#validateSchema = validateSchema;
  }

  get outputSchemas(): OutputSchemas {
    this.#outputSchemas ??= new OutputSchemas(this.#name, this.#validateSchema);
    return this.#outputSchemas;
  }

  get promptArguments(): PromptArguments {
    this.#promptArguments ??= new PromptArguments(this.#name);
    return this.#promptArguments;
  }

  get toolTasks(): ToolTasks {
    this.#toolTasks ??= new ToolTasks(this.#name);
    return this.#toolTasks;
  }

  /** Reads a complete list result. */
  remember(method: string, result: unknown): void {
    if (method === 'prompts/list') this.promptArguments.remember(result);
    if (method === 'tools/list') {
      this.outputSchemas.remember(result);
      this.toolTasks.remember(result);
    }
  }

  forgetTools(): void {
    this.#outputSchemas?.clear();
    this.#toolTasks?.clear();
  }

  forgetPrompts(): void {
    this.#promptArguments?.clear();
  }

  forgetAll(): void {
    this.forgetTools();
    this.forgetPrompts();
  }
}
