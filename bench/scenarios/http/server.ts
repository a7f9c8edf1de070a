// The HTTP bench server (bench/http-server.mjs) for one scenario: started with the minimal
// environment every bench server gets, its URL read from its first line, stopped by its pid.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { HttpBenchServer } from '../../clients/http/index.js';
import { minimalEnvironment, root } from '../../clients/index.js';
import { waitGone } from '../../core/processes.js';

export const HTTP_SERVER_SCRIPT = path.join(root, 'bench/http-server.mjs');

/** Runs `body` with a fresh HTTP bench server, stopped afterwards whatever happens. */
export async function withHttpServer<T>(body: (server: HttpBenchServer) => Promise<T>): Promise<T> {
  const child = spawn(process.execPath, [HTTP_SERVER_SCRIPT], {
    env: minimalEnvironment(),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the HTTP bench server did not start in 10 s')),
        10_000,
      );
      createInterface({ input: child.stdout }).once('line', (line) => {
        clearTimeout(timer);
        resolve(line.trim());
      });
      child.once('exit', (code) => reject(new Error(`the HTTP bench server exited (${code})`)));
    });
    return await body({ url, pid: child.pid! });
  } finally {
    child.stdin.end();
    if (child.pid !== undefined && !(await waitGone(child.pid, 2000))) child.kill('SIGKILL');
  }
}
