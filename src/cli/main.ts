#!/usr/bin/env node
// The conduit-mcp command: inspect and call any MCP server from a terminal.
import { parseCliArguments, USAGE, UsageProblem } from './args.js';
import { describeFailure, EXIT, exitCodeFor, type Output, runCommand } from './run.js';

const output: Output = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(text.startsWith('\r') ? text : `${text}\n`),
  errIsTty: process.stderr.isTTY === true,
};

async function main(argv: string[]): Promise<number> {
  let cli: ReturnType<typeof parseCliArguments>;
  try {
    cli = parseCliArguments(argv);
  } catch (error) {
    output.err(`conduit-mcp: ${(error as Error).message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (cli === 'help') {
    output.out(USAGE);
    return EXIT.ok;
  }
  try {
    return await runCommand(cli, output);
  } catch (error) {
    const code = exitCodeFor(error);
    output.err(
      `conduit-mcp: ${describeFailure(error)}${error instanceof UsageProblem ? `\n\n${USAGE}` : ''}`,
    );
    return code;
  }
}

process.exitCode = await main(process.argv.slice(2));
