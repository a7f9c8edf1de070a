import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Client } from '../index.js';
import { callTool, clientToolHost, printToolResult } from './call-tool.js';
import type { CliArguments, Environment } from './cli-arguments.js';
import type { FormTerminal } from './elicit.js';
import { describeFailure, EXIT, exitCodeFor, Interrupted, OutputClosed } from './exit-codes.js';
import { messageContextOf } from './messages.js';
import type { Output } from './output.js';
import { promptsTable, renderPrompt, renderResource, resourcesTable, toolsTable } from './render.js';
import { saveBinaries } from './save.js';
import { requestOptions } from './server-client.js';
import type { Stopper } from './stop.js';
import { readArgsJson } from './tool-arguments.js';

const SHELL_COMMANDS = ['tools', 'resources', 'prompts', 'call', 'read', 'prompt', 'help', 'exit'];
const SHELL_HELP = `Commands (the server stays running between them):
  tools | resources | prompts         one list
  call <tool> [key=value ...]         call a tool; or call <tool> {"key": 1}
  read <uri>                          read a resource
  prompt <name> [key=value ...]       get a prompt
  help | exit                         this text | leave (Ctrl-D too)
Tab completes commands and tool names; history is kept in ~/.conduit-mcp_history.`;

/** Splits a line into words: double or single quotes group, a backslash escapes. No shell runs. */
function splitWords(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let quote: string | undefined;
  let started = false;
  for (let index = 0; index < line.length; index++) {
    const character = line[index]!;
    if (character === '\\' && index + 1 < line.length && quote !== "'") {
      current += line[++index];
      started = true;
    } else if (quote) {
      if (character === quote) quote = undefined;
      else current += character;
    } else if (character === '"' || character === "'") {
      quote = character;
      started = true;
    } else if (/\s/.test(character)) {
      if (started) words.push(current);
      current = '';
      started = false;
    } else {
      current += character;
      started = true;
    }
  }
  if (started) words.push(current);
  return words;
}

function loadHistory(historyFile: string): string[] {
  try {
    return readFileSync(historyFile, 'utf8').split('\n').filter(Boolean).reverse().slice(0, 500);
  } catch {
    return [];
  }
}

/** `conduit-mcp shell`: one server, many commands, until exit, Ctrl-D or a signal. */
export async function runShell(
  client: Client,
  cli: CliArguments,
  output: Output,
  stopper: Stopper,
  formTerminal: FormTerminal,
  environment: Environment,
): Promise<number> {
  const historyFile =
    environment.env.CONDUIT_MCP_HISTORY ?? path.join(environment.home, '.conduit-mcp_history');
  let toolNames: string[] = [];
  const refreshTools = async () => {
    if (!client.serverCapabilities?.tools) return;
    toolNames = (await client.listTools(undefined, requestOptions(cli, stopper))).tools.map(
      (tool) => tool.name,
    );
  };
  await refreshTools();
  client.on('toolsListChanged', () => void refreshTools().catch(() => {}));
  const completer = (line: string): [string[], string] => {
    const words = line.split(/\s+/);
    if (words.length <= 1) {
      const hits = SHELL_COMMANDS.filter((command) => command.startsWith(line));
      return [hits.map((hit) => `${hit} `), line];
    }
    if (words[0] === 'call' && words.length === 2) {
      const partial = words[1]!;
      const hits = toolNames.filter((name) => name.startsWith(partial));
      return [hits.map((hit) => `${hit} `), partial];
    }
    return [[], line];
  };
  const terminal = process.stdin.isTTY === true;
  const rl = createInterface({
    input: process.stdin,
    // Piped commands get results only, without prompts between them.
    ...(terminal ? { output: process.stdout } : {}),
    completer,
    terminal,
    history: terminal ? loadHistory(historyFile) : [],
    historySize: 500,
    prompt: `${output.policy.line(client.serverInfo?.name ?? 'mcp')}> `,
  });
  // Piped stdin can end (and close the interface) while the read lines still wait to be run: from
  // then on there is no prompt to show, and Node 24 throws on rl.prompt() after close.
  let closed = false;
  rl.once('close', () => {
    closed = true;
  });
  const prompt = () => {
    if (!closed) rl.prompt();
  };
  formTerminal.attach(rl);
  /** The command running now: Ctrl-C on the terminal cancels it, and the shell goes on. */
  let running: AbortController | undefined;
  // Ctrl-C at the prompt clears the line (in a form, the form's own handler cancels it); during a
  // command, it cancels that command. A signal (piped, or kill) stops the run as usual.
  rl.on('SIGINT', () => {
    if (formTerminal.asking) return;
    if (running) {
      running.abort(new CommandCancelled());
      return;
    }
    rl.write(null, { ctrl: true, name: 'u' });
    process.stdout.write('\n');
    prompt();
  });
  stopper.controller.signal.addEventListener('abort', () => rl.close(), { once: true });
  if (terminal)
    output.err(`conduit-mcp shell: ${toolNames.length} tools; help for commands, exit or Ctrl-D to leave`);
  prompt();
  const lines = rl[Symbol.asyncIterator]();
  /** Piped, the shell exits with the first failing command's code, so a script notices. */
  let firstFailure: number = EXIT.ok;
  for (;;) {
    // The iterator ends by itself when the interface closes (stdin ended, or the run was
    // stopped), after the lines already read: racing it with 'close' loses piped lines on Node 24.
    const next = await stopper.race(lines.next());
    if (next.done) break;
    const line = String(next.value).trim();
    if (line === '') {
      prompt();
      continue;
    }
    if (terminal) {
      try {
        appendFileSync(historyFile, `${line}\n`, { mode: 0o600 });
      } catch {
        // History is a convenience: a read-only home must not break the shell.
      }
    }
    if (line === 'exit' || line === 'quit') break;
    let code: number;
    const command = new AbortController();
    running = command;
    // A cancelled command is left at once: the next one need not wait for its request to settle.
    const cancelled = new Promise<never>((_, reject) =>
      command.signal.addEventListener('abort', () => reject(command.signal.reason), { once: true }),
    );
    try {
      code = await Promise.race([
        runShellLine(client, cli, output, stopper, splitWords(line), command.signal),
        cancelled,
      ]);
    } catch (error) {
      if (error instanceof Interrupted || error instanceof OutputClosed) throw error;
      if (error instanceof CommandCancelled) {
        output.err('conduit-mcp: cancelled');
        code = new Interrupted('SIGINT').exitCode;
      } else {
        code = exitCodeFor(error);
        output.err(`conduit-mcp: ${describeFailure(error, output.policy, messageContextOf(cli))}`);
      }
    } finally {
      running = undefined;
    }
    if (firstFailure === EXIT.ok) firstFailure = code;
    prompt();
  }
  rl.close();
  return terminal ? EXIT.ok : firstFailure;
}

function keyValues(words: string[]): Array<[string, string]> {
  return words.map((word) => {
    const at = word.indexOf('=');
    if (at <= 0) throw new Error(`expected key=value, got ${JSON.stringify(word)}`);
    return [word.slice(0, at), word.slice(at + 1)];
  });
}

/** Ctrl-C during a shell command: that command is cancelled, the shell goes on. */
class CommandCancelled extends Error {
  constructor() {
    super('cancelled by Ctrl-C');
  }
}

async function runShellLine(
  client: Client,
  cli: CliArguments,
  shellOutput: Output,
  stopper: Stopper,
  words: string[],
  signal: AbortSignal,
): Promise<number> {
  const [command, target, ...rest] = words;
  const options = requestOptions(cli, stopper, signal);
  // A cancelled command's late answer is not printed: the shell has moved on.
  const output: Output = {
    ...shellOutput,
    out: (text) => {
      if (!signal.aborted) shellOutput.out(text);
    },
  };
  const policy = output.policy;
  switch (command) {
    case 'help':
      output.out(SHELL_HELP);
      return EXIT.ok;
    case 'tools':
      output.out(toolsTable(policy, (await client.listTools(undefined, options)).tools, output.width));
      return EXIT.ok;
    case 'resources':
      output.out(resourcesTable(policy, (await client.listResources(undefined, options)).resources));
      return EXIT.ok;
    case 'prompts':
      output.out(promptsTable(policy, (await client.listPrompts(undefined, options)).prompts));
      return EXIT.ok;
    case 'call': {
      if (!target) throw new Error('call needs a tool name: call <tool> [key=value ...]');
      const json = rest.length === 1 && rest[0]!.trimStart().startsWith('{');
      const base = json ? readArgsJson(rest[0]!) : {};
      const result = await callTool(
        clientToolHost(client),
        cli,
        output,
        stopper,
        target,
        base,
        json ? [] : keyValues(rest),
        signal,
      );
      return printToolResult({ ...cli, json: false }, output, result);
    }
    case 'read':
      if (!target) throw new Error('read needs a URI');
      {
        const result = await client.readResource({ uri: target }, options);
        const saved = cli.outputDir ? saveBinaries(cli.outputDir, result.contents ?? []) : new Map();
        output.out(renderResource(policy, result, saved));
      }
      return EXIT.ok;
    case 'prompt':
      if (!target) throw new Error('prompt needs a name');
      output.out(
        renderPrompt(
          policy,
          await client.getPrompt({ name: target, arguments: Object.fromEntries(keyValues(rest)) }, options),
        ),
      );
      return EXIT.ok;
    default:
      throw new Error(`unknown command ${JSON.stringify(command)}: ${SHELL_COMMANDS.join(', ')}`);
  }
}
