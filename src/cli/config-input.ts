import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { ConfigError, type InputResolver } from '../index.js';

/**
 * Answers a config file's `${input:id}` (VS Code's `inputs`) at the terminal: its description,
 * a numbered choice for `pickString`, the default on an empty line, no echo for a password. With
 * stdin or stderr not a terminal nobody could answer, so the entry is refused, saying what to write.
 */
export function configInputs(file: string): InputResolver {
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    return (request) => {
      throw new ConfigError(
        'input',
        `${file}: ${request.server} uses \${input:${request.id}}, and stdin is not a terminal, so conduit-mcp cannot ask for it; run it on a terminal, or write the value (or \${env:NAME}) in the file`,
      );
    };
  }
  // One question at a time: a pool starts its servers at once, and each may ask.
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const asked = queue.then(() => ask(file, request));
    queue = asked.catch(() => {});
    return asked;
  };
}

async function ask(file: string, request: Parameters<InputResolver>[0]): Promise<string> {
  const options = request.options ?? [];
  const label = request.description ?? request.id;
  const choices =
    options.length > 0 ? ` (${options.map((option, n) => `${n + 1}=${option}`).join(', ')})` : '';
  const fallback = request.default !== undefined && !request.password ? ` [${request.default}]` : '';
  const question = `${request.server}: ${label}${choices}${fallback}: `;
  // A password is asked over a muted output, so readline draws nothing of what is typed; the
  // question shows only once the interface has put the terminal in raw mode (no echo).
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({
    input: process.stdin,
    output: request.password ? muted : process.stderr,
    terminal: true,
  });
  if (request.password) process.stderr.write(question);
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      rl.once('SIGINT', () =>
        reject(new ConfigError('input', `${file}: ${request.server}: \${input:${request.id}} cancelled`)),
      );
      rl.question(request.password ? '' : question, resolve);
    });
    if (request.password) process.stderr.write('\n');
    const text = answer.trim();
    if (text === '') return request.default ?? '';
    if (options.length === 0) return text;
    const picked = /^\d+$/.test(text) ? options[Number(text) - 1] : options.find((option) => option === text);
    if (picked === undefined)
      throw new ConfigError(
        'input',
        `${file}: ${request.server}: \${input:${request.id}} must be one of ${options.join(', ')}`,
      );
    return picked;
  } finally {
    rl.close();
  }
}
