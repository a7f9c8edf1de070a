// Issue 37: every example of the documentation runs. Each fenced block of README.md and
// docs/**/*.md (not docs/reference/, which is generated) is one subtest named <file>:<line>:
// ts blocks type-checked together against the built package and run with node, sh blocks run
// line by line, other languages (text, json, ...) are output or data. The placeholders:
// - MCP_SERVER_URL: the demo server's tools over Streamable HTTP on 127.0.0.1, no authorization;
// - MCP_OAUTH_SERVER_URL: the same behind a loopback OAuth authorization server; an
//   authorization URL a block prints is opened by a non-interactive browser that signs in and
//   consents, and the redirect reaches the block's loopback listener.
// The convention the pages follow, and the options, are in test/docs/README.md.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type AuthServer, startAuthServer } from '../fixtures/auth/authorization-server.js';
import { consent } from '../helpers/auth-browser.js';
import { buildOnce } from '../helpers/cli.js';
import { type DemoHttp, startDemoHttp } from './demo-http.js';
import { type Block, extractBlocks } from './extract.js';
import { ExampleProject, root } from './harness.js';

/** README.md and every page under docs/ but the generated reference, sorted. */
function pages(): string[] {
  const found: string[] = ['README.md'];
  const walk = (directory: string) => {
    for (const entry of readdirSync(path.join(root, directory), { withFileTypes: true })) {
      const relative = `${directory}/${entry.name}`;
      if (entry.isDirectory()) {
        if (relative !== 'docs/reference') walk(relative);
      } else if (entry.name.endsWith('.md')) found.push(relative);
    }
  };
  if (existsSync(path.join(root, 'docs'))) walk('docs');
  return found.sort();
}

// DOCS_PAGES=docs/http.md,README.md runs the blocks of those pages only (while writing them).
const only = process.env.DOCS_PAGES?.split(',').map((page) => page.trim());
const blocks: Block[] = pages()
  .filter((file) => !only || only.includes(file))
  .flatMap((file) => extractBlocks(readFileSync(path.join(root, file), 'utf8'), file));

/**
 * The blocks of one shard: every `count`-th block from the `index`-th (1-based), so that the pages'
 * blocks spread over test files that run side by side, each well inside the per-file timeout.
 */
export function describeExamples(index: number, count: number): void {
  buildOnce();
  const mine = blocks.filter((_, position) => position % count === index - 1);
  if (mine.length === 0) return;
  describe(`documentation examples, part ${index} of ${count}`, { concurrency: 2 }, () => {
    let auth: AuthServer;
    let plain: DemoHttp;
    let protectedServer: DemoHttp;
    let project: ExampleProject;

    before(async () => {
      const demo = path.join(root, 'examples/demo-server.mjs');
      auth = await startAuthServer();
      plain = await startDemoHttp(demo);
      protectedServer = await startDemoHttp(demo, auth);
      project = await ExampleProject.create(mine, {
        env: { MCP_SERVER_URL: plain.url, MCP_OAUTH_SERVER_URL: protectedServer.url },
        authorizationOrigin: auth.origin,
        visit: (url) => consent(url, { deliver: true }),
      });
    });

    after(async () => {
      project?.close();
      await Promise.all([plain?.close(), protectedServer?.close(), auth?.close()]);
    });

    for (const block of mine) {
      test(`${block.file}:${block.line}`, async () => {
        const failure = await project.check(block);
        if (failure) assert.fail(failure);
      });
    }
  });
}
