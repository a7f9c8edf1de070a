import { createInterface, type Interface } from 'node:readline';
import type { ClientHandlers } from '../index.js';
import { answerField, type FormField, question } from './form-fields.js';
import type { Output } from './output.js';

type Answer = { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' | 'cancel' };

class Cancelled extends Error {}

/**
 * One question. The request's end, Ctrl-C or the interface closing (Ctrl-D) cancels it, and takes
 * the question back, so a lent interface (the shell's) never hands its next line to a dead form.
 */
function ask(rl: Interface, question: string, signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const asked = new AbortController();
    const cleanup = () => {
      signal.removeEventListener('abort', stop);
      rl.off('SIGINT', stop);
      rl.off('close', stop);
    };
    function stop() {
      cleanup();
      asked.abort();
      reject(new Cancelled());
    }
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    rl.once('SIGINT', stop);
    rl.once('close', stop);
    rl.question(question, { signal: asked.signal }, (answer) => {
      cleanup();
      resolve(answer.trim());
    });
  });
}

/**
 * The shell's readline, lent to a form while a command runs: a pending question takes the next
 * line instead of the shell (readline emits no 'line' while one is out), and the answers are
 * kept out of the shell's history.
 */
export class FormTerminal {
  #rl: Interface | undefined;
  #asking = false;

  attach(rl: Interface): void {
    this.#rl = rl;
  }

  /** Whether a form has the interface now (the shell's own Ctrl-C handling stands aside). */
  get asking(): boolean {
    return this.#asking;
  }

  lend(): { rl: Interface; done: () => void } | undefined {
    const rl = this.#rl as (Interface & { history?: string[] }) | undefined;
    if (!rl || this.#asking) return undefined;
    this.#asking = true;
    const history = rl.history ? [...rl.history] : undefined;
    return {
      rl,
      done: () => {
        if (history && rl.history) rl.history.splice(0, rl.history.length, ...history);
        this.#asking = false;
      },
    };
  }
}

/** Asks each field of a form on the terminal (stderr), then whether to send it. */
async function fillForm(
  rl: Interface,
  output: Output,
  server: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
): Promise<Answer> {
  const line = output.policy.line;
  const schema = (params.requestedSchema ?? {}) as Record<string, unknown>;
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields: FormField[] = Object.entries(properties).map(([name, fieldSchema]) => ({
    name,
    schema: fieldSchema ?? {},
    required: required.has(name),
  }));
  output.err(`\n${line(server)} asks: ${output.policy.text(String(params.message ?? ''))}`);
  if (params.mode === 'url') {
    output.err(`  open: ${line(String(params.url ?? ''))}`);
    const answer = await ask(rl, 'Done? [y/N] ', signal);
    return /^y/i.test(answer) ? { action: 'accept', content: {} } : { action: 'decline' };
  }
  const content: Record<string, unknown> = {};
  for (const field of fields) {
    // Each field is checked as it is answered, and asked again until it passes: a mistake costs
    // one answer, not the whole form.
    for (;;) {
      const answer = await answerField(field, await ask(rl, question(field, output.policy), signal));
      if ('skip' in answer) break;
      if ('value' in answer) {
        content[field.name] = answer.value;
        break;
      }
      output.err(`  (${line(answer.problem)})`);
    }
  }
  const send = await ask(rl, 'Send? [Y/n, c to cancel] ', signal);
  if (/^c/i.test(send)) return { action: 'cancel' };
  if (/^n/i.test(send)) return { action: 'decline' };
  return { action: 'accept', content };
}

/**
 * Answers the server's elicitation requests: a form on the terminal when stdin is one; declined,
 * with a note, when it is not (nobody could answer). Ctrl-C at a question cancels the form. In
 * the shell, the form borrows the shell's own readline (`terminal`), which owns stdin.
 */
export function elicitationHandler(
  output: Output,
  terminal?: FormTerminal,
): NonNullable<ClientHandlers['elicitation']> {
  let queue = Promise.resolve();
  return (params, { server, signal }) => {
    if (process.stdin.isTTY !== true) {
      output.err(
        `conduit-mcp: ${output.policy.line(server)} asked for input, but stdin is not a terminal: declined`,
      );
      return Promise.resolve({ action: 'decline' });
    }
    // One form at a time on one terminal.
    const answer = queue.then(async () => {
      const lent = terminal?.lend();
      const rl =
        lent?.rl ?? createInterface({ input: process.stdin, output: process.stderr, terminal: true });
      try {
        return await fillForm(rl, output, server, params, signal);
      } catch (error) {
        if (error instanceof Cancelled) return { action: 'cancel' as const };
        throw error;
      } finally {
        if (lent) lent.done();
        else rl.close();
      }
    });
    queue = answer.then(
      () => {},
      () => {},
    );
    return answer;
  };
}
