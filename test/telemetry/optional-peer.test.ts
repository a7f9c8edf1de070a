// @opentelemetry/api is an optional peer dependency: a process whose clients have telemetry off
// never imports it, and one that asks for telemetry without it installed gets a ConfigError that
// names the package. Both run the built package in a child process.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { buildOnce } from '../helpers/cli.js';
import { temporaryDirectory } from '../helpers/fixtures.js';

buildOnce();

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const here = import.meta.dirname;
const traceServer = path.join(here, 'trace-server.mjs');

/** A project with conduit-mcp installed (the built package, copied) and every dependency of this repository but those under `without`. */
function project(without: string[]): string {
  const directory = temporaryDirectory();
  const modules = path.join(directory, 'node_modules');
  const installed = path.join(modules, 'conduit-mcp');
  mkdirSync(installed, { recursive: true });
  cpSync(path.join(root, 'dist'), path.join(installed, 'dist'), { recursive: true });
  cpSync(path.join(root, 'package.json'), path.join(installed, 'package.json'));
  for (const entry of readdirSync(path.join(root, 'node_modules'))) {
    if (entry.startsWith('.') || entry === 'conduit-mcp' || without.includes(entry)) continue;
    symlinkSync(path.join(root, 'node_modules', entry), path.join(modules, entry));
  }
  writeFileSync(path.join(directory, 'package.json'), '{ "type": "module", "private": true }\n');
  cpSync(path.join(here, 'run-client.mjs'), path.join(directory, 'run-client.mjs'));
  return directory;
}

async function host(
  directory: string,
  mode: 'on' | 'off',
  imports?: string,
): Promise<{ seen?: Record<string, string>; error?: { name: string; key: string; message: string } }> {
  const args = [...(imports ? ['--import', path.join(here, 'record-imports.mjs')] : []), 'run-client.mjs'];
  const { stdout } = await run(process.execPath, [...args, traceServer, mode], {
    cwd: directory,
    env: { ...process.env, ...(imports && { IMPORTS_FILE: imports }) },
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

test('telemetry off: @opentelemetry/api is never imported, and no traceparent is sent; on, it is imported', async () => {
  const directory = project([]);
  const off = path.join(directory, 'imports-off.txt');
  const on = path.join(directory, 'imports-on.txt');
  const untraced = await host(directory, 'off', off);
  assert.deepEqual(untraced, { seen: {} });
  const loaded = readFileSync(off, 'utf8');
  assert.match(loaded, /conduit-mcp\/dist\/index\.js/, 'the hook saw the library load');
  assert.doesNotMatch(loaded, /@opentelemetry/);

  const traced = await host(directory, 'on', on);
  assert.ok(traced.seen, JSON.stringify(traced));
  assert.match(readFileSync(on, 'utf8'), /@opentelemetry\/api/);
});

test('telemetry without @opentelemetry/api installed: connect() rejects with a ConfigError naming the package', async () => {
  const directory = project(['@opentelemetry']);
  const { error } = await host(directory, 'on');
  assert.equal(error?.name, 'ConfigError');
  assert.equal(error?.key, 'telemetry');
  assert.match(
    error?.message ?? '',
    /needs the package @opentelemetry\/api, which is not installed: npm install @opentelemetry\/api/,
  );
  assert.deepEqual(await host(directory, 'off'), { seen: {} }, 'without telemetry the library works there');
});
