#!/usr/bin/env node
// The conduit-mcp command: inspect and call any MCP server from a terminal.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import type { Environment } from './cli-arguments.js';
import { describeFailure, EXIT, exitCodeFor, jsonFailure, OutputClosed, UsageProblem } from './exit-codes.js';
import { type MessageContext, messageContextOf } from './messages.js';
import { closableStderr, closableStdout, type Output } from './output.js';
import { parseCliArguments } from './parse-command-line.js';
import { usesPool } from './pool-commands.js';
import { runCommand } from './run.js';
import { RAW, SAFE } from './sanitize.js';
import { installSignalHandlers, Stopper } from './stop.js';
import { USAGE } from './usage.js';

async function main(argv: string[]): Promise<number> {
  const stopper = new Stopper();
  const stdout = closableStdout(() => {
    stopper.stop(new OutputClosed());
    // The reader may go away after the command has finished: the exit code still says so.
    process.exitCode = EXIT.outputClosed;
  });
  const stderr = closableStderr();
  const output: Output = {
    out: (text) => stdout.write(`${text}\n`),
    err: (text) => stderr(text.startsWith('\r') ? text : `${text}\n`),
    errIsTty: process.stderr.isTTY === true,
    // A terminal that reports no size (0 columns) is taken as unbounded.
    width: process.stdout.isTTY === true && process.stdout.columns > 0 ? process.stdout.columns : undefined,
    policy: argv.includes('--raw') ? RAW : SAFE,
  };
  const json = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length).includes('--json');
  let context: MessageContext | undefined;
  const fail = (error: unknown): number => {
    const code = exitCodeFor(error);
    if (code === EXIT.outputClosed) return code;
    if (json) {
      stdout.write(`${JSON.stringify(jsonFailure(error, code, context), null, 2)}\n`);
    }
    output.err(`conduit-mcp: ${describeFailure(error, output.policy, context)}`);
    return code;
  };
  let cli: ReturnType<typeof parseCliArguments>;
  try {
    cli = parseCliArguments(argv);
  } catch (error) {
    if (!(error instanceof UsageProblem)) throw error;
    return fail(error);
  }
  if (cli === 'help') {
    output.out(USAGE);
    return EXIT.ok;
  }
  if (cli === 'version') {
    const file = new URL('../../package.json', import.meta.url);
    output.out(`conduit-mcp ${(JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version}`);
    return EXIT.ok;
  }
  // A whole-file command's failures are each server's: they name their server themselves.
  if (!usesPool(cli)) context = messageContextOf(cli);
  installSignalHandlers(stopper, output.err);
  const environment: Environment = { platform: process.platform, env: process.env, home: homedir() };
  try {
    const code = await runCommand(cli, output, stopper, environment);
    return stdout.closed() ? EXIT.outputClosed : code;
  } catch (error) {
    // An abort because of a stop reports the stop, not the aborted request.
    return fail(stopper.reason ?? error);
  }
}

process.exitCode = await main(process.argv.slice(2));
