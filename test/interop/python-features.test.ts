// The features suite against Python MCP servers: one fixture on the official SDK (`mcp` 2.3,
// MCPServer) and one on FastMCP 4 (test/fixtures/python/*_features_server.py), both dual-era.
// Each runs over stdio three ways: directly (the venv's python and the script), as a module
// (`python -m`, found through PYTHONPATH) and behind a shell launcher (run-python.sh), in both
// eras: modern (protocol 'auto': the probe finds 2026-07-28) and legacy (protocol 'legacy':
// initialize, 2025-11-25). What each era does with the same features:
// - modern: elicitation, sampling and roots come back in one input_required round of tools/call
//   (the fixtures return an InputRequiredResult and read the input responses on the retry);
// - legacy: they are server requests (elicitation/create, sampling/createMessage, roots/list)
//   sent while tools/call runs, answered by the same handlers.
// Each configuration starts its server once, runs every feature on it, then closes it and checks
// its process group is gone. Configurations run four at a time.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, type ClientOptions, type Progress } from '../../src/index.js';
import type { StdioOptions } from '../../src/transport/stdio/options.js';
import { waitGroupGone } from '../helpers/processes.js';
import { requirePython } from '../helpers/python.js';
import { names, textOf } from '../helpers/wait.js';

const python = requirePython();
const fixtures = path.resolve(import.meta.dirname, '../fixtures/python');

const LIBRARIES = [
  { label: 'mcp 2.3 (MCPServer)', module: 'mcp_features_server', serverName: 'python-mcp-features' },
  { label: 'fastmcp 4', module: 'fastmcp_features_server', serverName: 'python-fastmcp-features' },
] as const;

type Library = (typeof LIBRARIES)[number];

const LAUNCHERS: Record<string, (library: Library) => StdioOptions> = {
  direct: (library) => ({ command: python, args: [path.join(fixtures, `${library.module}.py`)] }),
  'python -m': (library) => ({
    command: python,
    args: ['-m', library.module],
    env: { PYTHONPATH: fixtures },
    cwd: fixtures,
  }),
  'shell launcher': (library) => ({
    command: path.join(fixtures, 'run-python.sh'),
    args: [path.join(fixtures, `${library.module}.py`)],
  }),
};

const ERAS = [
  { era: 'modern', protocol: 'auto', version: '2026-07-28' },
  { era: 'legacy', protocol: 'legacy', version: '2025-11-25' },
] as const;

const ROOT = { uri: 'file:///srv/project', name: 'project' };

describe('Python MCP servers over stdio', { concurrency: 4 }, () => {
  for (const library of LIBRARIES) {
    for (const [launcher, stdio] of Object.entries(LAUNCHERS)) {
      for (const { era, protocol, version } of ERAS) {
        describe(`${library.label}, ${launcher}, ${era}`, () => {
          let client: Client;
          const asked: string[] = [];
          before(async () => {
            const options: ClientOptions = {
              name: `${library.module}-${era}`,
              transport: { type: 'stdio', stderr: 'discard', ...stdio(library) },
              protocol,
              // A loaded machine starts Python slowly: the probe and the handshake get room.
              probeTimeout: 20_000,
              requestTimeout: 30_000,
              reconnect: { maxReconnects: 0 },
              roots: [ROOT],
              handlers: {
                elicitation: async (params) => {
                  asked.push(`elicitation ${params.message}`);
                  return { action: 'accept', content: { name: 'Ada' } };
                },
                sampling: async () => {
                  asked.push('sampling');
                  return { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'test-model' };
                },
              },
            };
            client = new Client(options);
            await client.connect();
          });
          after(async () => {
            const pid = client.pid;
            await client.close();
            if (pid !== undefined)
              assert.ok(await waitGroupGone(pid, 10_000), `process group ${pid} is gone`);
          });

          test('the era and version, and the server named by its library', async () => {
            assert.equal(client.era, era);
            assert.equal(client.protocolVersion, version);
            assert.equal(client.serverInfo?.name, library.serverName);
            assert.equal(textOf(await client.callTool({ name: 'era' })), version);
          });

          test('tools: listed with their schemas; structured output checked against outputSchema', async () => {
            const { tools } = await client.listTools();
            assert.deepEqual(names(tools).sort(), ['ask', 'count', 'era', 'weather']);
            const weather = tools.find((tool) => tool.name === 'weather')!;
            assert.equal((weather.outputSchema as { type?: string }).type, 'object');
            const result = await client.callTool({ name: 'weather', arguments: { city: 'Oslo' } });
            assert.deepEqual(result.structuredContent, { city: 'Oslo', celsius: 21.5 });
            assert.notEqual(result.isError, true);
          });

          test('resources: listed and read', async () => {
            const { resources } = await client.listResources();
            assert.deepEqual(
              resources.map((resource) => resource.uri),
              ['memo://greeting'],
            );
            const read = await client.readResource({ uri: 'memo://greeting' });
            assert.deepEqual(
              read.contents.map((content) => ('text' in content ? content.text : undefined)),
              ['hello from python'],
            );
          });

          test('prompts: listed and rendered with their arguments', async () => {
            const { prompts } = await client.listPrompts();
            assert.deepEqual(names(prompts), ['greet']);
            const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
            const [message] = prompt.messages;
            assert.deepEqual(message!.content, { type: 'text', text: 'Say hello to Ada' });
          });

          test('progress: one callback per step, in order, before the result', async () => {
            const seen: Progress[] = [];
            const result = await client.callTool(
              { name: 'count', arguments: { steps: 3 } },
              { onProgress: (progress) => seen.push(progress) },
            );
            assert.equal(textOf(result), 'counted 3');
            assert.deepEqual(
              seen.map(({ progress, total }) => [progress, total]),
              [
                [1, 3],
                [2, 3],
                [3, 3],
              ],
            );
          });

          test('elicitation, sampling and roots answered by the handlers and the roots option', async () => {
            asked.length = 0;
            const result = await client.callTool({ name: 'ask' });
            const answers = result.structuredContent as Record<string, Record<string, unknown>>;
            assert.deepEqual(answers.form, { action: 'accept', content: { name: 'Ada' } });
            assert.equal(answers.sample!.model, 'test-model');
            assert.deepEqual(answers.sample!.content, { type: 'text', text: 'hi' });
            assert.deepEqual(answers.roots, { roots: [ROOT] });
            assert.deepEqual(asked.sort(), ['elicitation Your name?', 'sampling']);
          });
        });
      }
    }
  }
});
