import { parseArgs } from 'node:util';
import { UsageProblem } from './exit-codes.js';

/** Every option the command takes, as `util.parseArgs` reads them. */
export const OPTIONS = {
  arg: { type: 'string', multiple: true },
  args: { type: 'string' },
  json: { type: 'boolean' },
  format: { type: 'string' },
  limit: { type: 'string' },
  'no-validate': { type: 'boolean' },
  raw: { type: 'boolean' },
  structured: { type: 'boolean' },
  output: { type: 'string' },
  verbose: { type: 'boolean' },
  trace: { type: 'string' },
  config: { type: 'string' },
  server: { type: 'string' },
  env: { type: 'string', multiple: true },
  header: { type: 'string', multiple: true },
  'allow-insecure': { type: 'boolean' },
  'client-id': { type: 'string' },
  'client-secret-env': { type: 'string' },
  grant: { type: 'string' },
  'assertion-file': { type: 'string' },
  scope: { type: 'string', multiple: true },
  dpop: { type: 'boolean' },
  open: { type: 'boolean' },
  'no-login': { type: 'boolean' },
  'pass-env': { type: 'string', multiple: true },
  cwd: { type: 'string' },
  stderr: { type: 'string' },
  'stderr-tail': { type: 'string' },
  timeout: { type: 'string' },
  'max-time': { type: 'string' },
  'connect-timeout': { type: 'string' },
  'probe-timeout': { type: 'string' },
  'max-message-bytes': { type: 'string' },
  'max-junk-lines': { type: 'string' },
  protocol: { type: 'string' },
  'log-level': { type: 'string' },
  root: { type: 'string', multiple: true },
  http: { type: 'string' },
  allow: { type: 'string', multiple: true },
  deny: { type: 'string', multiple: true },
  'token-env': { type: 'string' },
  'allow-host': { type: 'string', multiple: true },
  'max-body-bytes': { type: 'string' },
  'max-in-flight': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

/** Options that take a number: a negative one is still their value (`--timeout -5`), to be refused by name. */
const NUMBER_OPTIONS = new Set([
  '--timeout',
  '--max-time',
  '--connect-timeout',
  '--probe-timeout',
  '--max-message-bytes',
  '--max-junk-lines',
  '--stderr-tail',
  '--limit',
  '--max-body-bytes',
  '--max-in-flight',
]);

/** The options' values as given, before any is checked. */
export type OptionValues = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>
>['values'];

/** parseArgs' messages, in our words. */
function explainParseError(error: Error): string {
  const unknown = /Unknown option '([^']+)'/.exec(error.message);
  if (unknown) return `unknown option ${unknown[1]}`;
  const missing = /Option '(--[\w-]+)[^']*' argument missing/.exec(error.message);
  if (missing) return `${missing[1]} needs a value`;
  const ambiguous = /Option '(--[\w-]+)[^']*' argument is ambiguous/.exec(error.message);
  if (ambiguous)
    return `${ambiguous[1]} needs a value (write ${ambiguous[1]}=<value> for one that starts with -)`;
  return error.message;
}

/**
 * Reads the options before `--` by the table, and the words between them; the server command is
 * what follows `--`. An unknown or incomplete option is a UsageProblem.
 */
export function readOptions(argv: readonly string[]) {
  const split = argv.indexOf('--');
  const own = split === -1 ? [...argv] : argv.slice(0, split);
  const serverCommand = split === -1 ? [] : argv.slice(split + 1);
  // `--timeout -5` is the option with a wrong value, not an option named -5.
  for (let index = 0; index < own.length - 1; index++) {
    if (NUMBER_OPTIONS.has(own[index]!) && /^-\d/.test(own[index + 1]!)) {
      own.splice(index, 2, `${own[index]}=${own[index + 1]}`);
    }
  }
  try {
    const { values, positionals } = parseArgs({
      args: own,
      allowPositionals: true,
      strict: true,
      options: OPTIONS,
    });
    return { values, positionals, serverCommand };
  } catch (error) {
    throw new UsageProblem(explainParseError(error as Error));
  }
}
