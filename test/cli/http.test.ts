// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config files write ${VAR} literally
// Issue 17, the command line: an HTTP server named by its URL (or a config entry with `url`),
// `--header` as a Secret, and `--verbose` narrating era detection and each HTTP status. The
// built command runs as a user would, against real servers on loopback: the official SDK 1.x
// (stateful, stateless, HTTP+SSE) and 2.x servers, the Python FastMCP server, and plain-Node
// servers that record what they received.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { startSdkV1, startSdkV2 } from '../fixtures/http/sdk-servers.js';
import { buildOnce, run, start } from '../helpers/cli.js';
import { temporaryDirectory } from '../helpers/fixtures.js';
import { DISCOVER_RESULT, plainServer, result, type Seen, startPythonHttp } from '../helpers/http.js';

buildOnce();

const TOKEN = 'tok-9f8e7d6c5b4a-secret';
const API_KEY = 'key-0a1b2c3d4e-secret';

/** Everything the command wrote, to check that no Secret shows anywhere. */
const everything = (finished: { stdout: string; stderr: string }) => `${finished.stdout}\n${finished.stderr}`;

function writeConfig(content: unknown): string {
  const file = path.join(temporaryDirectory(), 'mcp.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

/** A modern plain-Node server with one tool that echoes back the headers it got, and a completion. */
async function echoingServer() {
  return plainServer((request, res) => {
    const method = request.message?.method;
    if (method === 'server/discover') {
      return result(res, request, {
        ...DISCOVER_RESULT,
        capabilities: { tools: {}, completions: {} },
      });
    }
    if (method === 'tools/list') {
      return result(res, request, {
        tools: [{ name: 'headers', inputSchema: { type: 'object', properties: {} } }],
      });
    }
    if (method === 'tools/call') {
      const { authorization, 'x-api-key': key, 'x-plain': plain } = request.headers;
      return result(res, request, {
        content: [{ type: 'text', text: JSON.stringify({ authorization, key, plain }) }],
      });
    }
    if (method === 'completion/complete') {
      return result(res, request, { completion: { values: ['alpha', 'alps'], hasMore: false } });
    }
    res.writeHead(404).end();
  });
}

describe('a URL instead of -- command', () => {
  test('inspect the official SDK 1.x stateful server: legacy era, its tools', async () => {
    const server = await startSdkV1();
    after(() => server.close());
    const inspect = await run(['inspect', server.url]);
    assert.equal(inspect.code, 0, inspect.stderr);
    assert.match(inspect.stdout, /Server\s+sdk-v1-http 1\.0\.0/);
    assert.match(inspect.stdout, /Era\s+legacy \(protocol 2025-11-25\)/);
    assert.match(inspect.stdout, /Tools \(4\)/);
    // The session was ended on close.
    assert.ok(server.requests.some((request) => request.method === 'DELETE'));
  });

  test('call on the SDK 2.x server (modern era), the URL after -- or as the last argument, --json too', async () => {
    const server = await startSdkV2();
    after(() => server.close());
    const positional = await run(['call', 'echo', '--arg', 'text=héllo', server.url]);
    assert.equal(positional.code, 0, positional.stderr);
    assert.equal(positional.stdout, 'héllo\n');
    const dashed = await run(['call', 'echo', '--json', '--arg', 'text=hi', '--', server.url]);
    assert.equal(dashed.code, 0, dashed.stderr);
    assert.deepEqual(JSON.parse(dashed.stdout).content, [{ type: 'text', text: 'hi' }]);
    const modernCalls = server.requests.filter(
      (request) => (request.body as { method?: string })?.method === 'tools/call',
    );
    assert.equal(modernCalls.length, 2);
    for (const request of modernCalls) assert.equal(request.headers['mcp-protocol-version'], '2026-07-28');
  });

  test('tools on the SDK 1.x stateless server and on the 2024-11-05 HTTP+SSE server', async () => {
    const stateless = await startSdkV1({ stateless: true });
    after(() => stateless.close());
    const tools = await run(['tools', '--json', stateless.url]);
    assert.equal(tools.code, 0, tools.stderr);
    assert.deepEqual(
      JSON.parse(tools.stdout).map((tool: { name: string }) => tool.name),
      ['echo', 'count', 'ask', 'slow'],
    );
    const sse = await startSdkV1({ sse: true });
    after(() => sse.close());
    const sseUrl = `${sse.origin}/sse`;
    const call = await run(['call', 'echo', '--arg', 'text=over sse', sseUrl]);
    assert.equal(call.code, 0, call.stderr);
    assert.equal(call.stdout, 'over sse\n');
  });

  test('the Python FastMCP server over Streamable HTTP', async () => {
    const python = await startPythonHttp();
    after(() => python.close());
    const inspect = await run(['inspect', '--json', python.url], { timeoutMs: 60_000 });
    assert.equal(inspect.code, 0, inspect.stderr);
    const report = JSON.parse(inspect.stdout);
    assert.ok(report.tools.length > 0, inspect.stdout);
    const name = report.tools[0].name as string;
    assert.equal(typeof name, 'string');
  });

  test('shell, complete and watch take a URL too', async () => {
    const server = await startSdkV2();
    after(() => server.close());
    const shell = await run(['shell', server.url], { input: 'tools\ncall echo text=from-shell\n' });
    assert.equal(shell.code, 0, shell.stderr);
    assert.match(shell.stdout, /echo\s+text\*: string/);
    assert.match(shell.stdout, /^from-shell$/m);

    const echoing = await echoingServer();
    after(() => echoing.close());
    const complete = await run(['complete', 'prompt:greet', 'who', 'al', echoing.url]);
    assert.equal(complete.code, 0, complete.stderr);
    assert.equal(complete.stdout, 'alpha\nalps\n');
    const asked = echoing.seen.find((seen) => seen.message?.method === 'completion/complete')!;
    assert.deepEqual(asked.message!.params!.argument, { name: 'who', value: 'al' });

    const watch = start(['watch', server.url]);
    await watch.waitFor(/watching; Ctrl-C to stop/);
    watch.child.kill('SIGINT');
    const stopped = await watch.finished;
    assert.equal(stopped.code, 130, stopped.stderr);
  });
});

describe('--header', () => {
  test('sent on every request as given; the values show in no output, --verbose or --trace', async () => {
    const server = await echoingServer();
    after(() => server.close());
    const call = await run([
      'call',
      'headers',
      '--verbose',
      '--trace',
      '-',
      '--header',
      `Authorization: Bearer ${TOKEN}`,
      '--header',
      `X-Api-Key:${API_KEY}`,
      '--header',
      'X-Plain: visible',
      server.url,
    ]);
    assert.equal(call.code, 0, call.stderr);
    for (const seen of server.seen) {
      assert.equal(seen.headers.authorization, `Bearer ${TOKEN}`, seen.message?.method);
      assert.equal(seen.headers['x-api-key'], API_KEY);
      assert.equal(seen.headers['x-plain'], 'visible');
    }
    // The server echoed the secrets in its result: the terminal shows the result, as asked for,
    // but the trace of that same message has them redacted.
    assert.match(call.stderr, /← .*\[Secret\]/);
    assert.ok(!call.stderr.includes(TOKEN) && !call.stderr.includes(API_KEY), call.stderr);
    assert.match(call.stdout, /"plain":"visible"/);
  });

  test('a server echoing the secret in an HTML error page: the excerpt has it redacted, exit 1', async () => {
    const server = await plainServer((request: Seen, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end(
        `<html><body><h1>Internal error</h1><p>bad key ${request.headers['x-api-key']}</p></body></html>`,
      );
    });
    after(() => server.close());
    const failed = await run(['inspect', '--verbose', '--header', `X-Api-Key: ${API_KEY}`, server.url]);
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, /HTTP 500/);
    assert.match(failed.stderr, /Internal error bad key \[Secret\]/);
    assert.ok(!everything(failed).includes(API_KEY), everything(failed));
    assert.ok(!failed.stderr.includes('<html>'));
  });

  test('mistakes: no colon, a header the transport sets itself, a header for a stdio server', async () => {
    const noColon = await run(['inspect', '--header', `Bearer ${TOKEN}`, 'https://127.0.0.1:1/mcp']);
    assert.equal(noColon.code, 2);
    assert.match(noColon.stderr, /--header takes 'Name: value'/);
    assert.ok(!noColon.stderr.includes(TOKEN));
    const reserved = await run(['inspect', '--header', 'Mcp-Session-Id: x', 'http://127.0.0.1:1/mcp']);
    assert.equal(reserved.code, 2);
    assert.match(reserved.stderr, /--header Mcp-Session-Id: the transport sets Mcp-Session-Id itself/);
    const stdio = await run(['inspect', '--header', 'X-A: b', '--', process.execPath, 'server.js']);
    assert.equal(stdio.code, 2);
    assert.match(stdio.stderr, /--header is for HTTP servers: give the server's URL/);
    const stdioFlags = await run(['inspect', '--env', 'A=b', '--cwd', '/', 'http://127.0.0.1:1/mcp']);
    assert.equal(stdioFlags.code, 2);
    assert.match(
      stdioFlags.stderr,
      /--env, --cwd are for a server command \(stdio\); http:\/\/127\.0\.0\.1:1\/mcp is an HTTP server/,
    );
  });
});

describe('--verbose over HTTP', () => {
  test('legacy server: the probe, its HTTP status, the fallback to initialize, the DELETE', async () => {
    const server = await startSdkV1();
    after(() => server.close());
    const inspect = await run(['tools', '--verbose', server.url]);
    assert.equal(inspect.code, 0, inspect.stderr);
    const lines = inspect.stderr.split('\n').map((line) => line.replace(/^\[\d+ ms\] /, ''));
    const order = [
      'era: probing the era: server/discover (2026-07-28)',
      `POST ${server.url} (server/discover): HTTP 400`,
      'era: legacy era (the probe was answered with error -32000): initialize (2025-11-25)',
      `POST ${server.url} (initialize): HTTP 200`,
      'ready: legacy era, protocol 2025-11-25',
      `DELETE ${server.url} (end of session): HTTP 200`,
    ];
    let from = 0;
    for (const expected of order) {
      const at = lines.indexOf(expected, from);
      assert.ok(at >= from, `${JSON.stringify(expected)} after line ${from} in:\n${inspect.stderr}`);
      from = at + 1;
    }
  });

  test('modern server: discover answered, modern era', async () => {
    const server = await startSdkV2();
    after(() => server.close());
    const tools = await run(['tools', '--verbose', server.url]);
    assert.equal(tools.code, 0, tools.stderr);
    assert.match(
      tools.stderr,
      /POST \S+ \(server\/discover\): HTTP 200\n.*era: server\/discover answered: modern era, 2026-07-28/,
    );
  });

  test('HTTP+SSE server: initialize refused, the GET stream, its endpoint', async () => {
    const server = await startSdkV1({ sse: true });
    after(() => server.close());
    const url = `${server.origin}/sse`;
    const tools = await run(['tools', '--verbose', url]);
    assert.equal(tools.code, 0, tools.stderr);
    assert.match(
      tools.stderr,
      /era: initialize answered HTTP 404: trying the 2024-11-05 HTTP\+SSE transport/,
    );
    assert.match(tools.stderr, new RegExp(`GET ${url} \\(HTTP\\+SSE stream\\): HTTP 200`));
    assert.match(
      tools.stderr,
      /era: the endpoint speaks the 2024-11-05 HTTP\+SSE transport; messages go to http:\/\/127\.0\.0\.1:\d+\/messages/,
    );
  });
});

describe('config entries as the hosts write them', () => {
  test('Claude Code (type http), Cursor (url only), VS Code (servers, type sse/streamable-http, inputs by env)', async () => {
    const server = await echoingServer();
    after(() => server.close());
    const env = { ...process.env, DOCS_TOKEN: TOKEN };
    const files = {
      'claude-code': writeConfig({
        mcpServers: {
          docs: { type: 'http', url: server.url, headers: { Authorization: 'Bearer ${DOCS_TOKEN}' } },
        },
      }),
      cursor: writeConfig({
        mcpServers: { docs: { url: server.url, headers: { Authorization: 'Bearer ${env:DOCS_TOKEN}' } } },
      }),
      'vscode-streamable': writeConfig({
        servers: {
          docs: {
            type: 'streamable-http',
            url: server.url,
            headers: { Authorization: 'Bearer ${env:DOCS_TOKEN}' },
          },
        },
      }),
      'vscode-sse': writeConfig({
        servers: {
          docs: { type: 'sse', url: server.url, headers: { Authorization: 'Bearer ${env:DOCS_TOKEN}' } },
        },
      }),
    };
    for (const [host, file] of Object.entries(files)) {
      const before = server.seen.length;
      const call = await run(['call', 'headers', '--verbose', '--config', file, '--server', 'docs'], { env });
      assert.equal(call.code, 0, `${host}: ${call.stderr}`);
      assert.equal(JSON.parse(call.stdout).authorization, `Bearer ${TOKEN}`, host);
      assert.ok(server.seen.length > before);
      assert.ok(!call.stderr.includes(TOKEN), `${host}: ${call.stderr}`);
    }
    // --header adds to the entry's headers, and wins over one of the same name (any case).
    const overridden = await run(
      [
        'call',
        'headers',
        '--config',
        files.cursor,
        '--server',
        'docs',
        '--header',
        'authorization: Bearer other',
        '--header',
        'X-Plain: added',
      ],
      { env },
    );
    assert.equal(overridden.code, 0, overridden.stderr);
    assert.deepEqual(JSON.parse(overridden.stdout), { authorization: 'Bearer other', plain: 'added' });
  });

  test('stdio-only flags with an HTTP entry, --header with a stdio entry: usage errors naming both', async () => {
    const file = writeConfig({
      mcpServers: {
        remote: { type: 'http', url: 'http://127.0.0.1:1/mcp' },
        local: { command: process.execPath, args: ['server.js'] },
      },
    });
    const env = await run(['tools', '--config', file, '--server', 'remote', '--stderr', 'discard']);
    assert.equal(env.code, 2);
    assert.match(
      env.stderr,
      /--stderr is for a server command \(stdio\); remote in \S+mcp\.json is an HTTP server/,
    );
    const header = await run(['tools', '--config', file, '--server', 'local', '--header', 'X-A: b']);
    assert.equal(header.code, 2);
    assert.match(header.stderr, /--header is for HTTP servers; local in \S+mcp\.json is a stdio server/);
  });
});

describe('HTTP failures, each with its exit code', () => {
  test('nothing listening: exit 3, naming the URL', async () => {
    const server = await plainServer(() => {});
    const url = server.url;
    await server.close();
    const refused = await run(['inspect', url]);
    assert.equal(refused.code, 3, refused.stderr);
    assert.match(
      refused.stderr,
      new RegExp(`POST ${url} \\(server/discover\\) failed: connect ECONNREFUSED`),
    );
  });

  test('plain http: to a host that is not loopback: refused before anything is sent, --allow-insecure named', async () => {
    const insecure = await run(['inspect', 'http://mcp.example.com/mcp']);
    assert.equal(insecure.code, 2);
    assert.match(
      insecure.stderr,
      /the URL http:\/\/mcp\.example\.com\/mcp uses plain http: to mcp\.example\.com, which is not loopback; use https:, or pass --allow-insecure/,
    );
    const withoutUrl = await run(['inspect', '--allow-insecure', '--', process.execPath, 'server.js']);
    assert.equal(withoutUrl.code, 2);
    assert.match(withoutUrl.stderr, /--allow-insecure is for HTTP servers/);
  });

  test('a server that never answers: --connect-timeout, exit 4, saying "at that URL"', async () => {
    const server = await plainServer(() => {});
    after(() => server.close());
    const stalled = await run(['inspect', '--connect-timeout', '1500', server.url]);
    assert.equal(stalled.code, 4, stalled.stderr);
    assert.match(
      stalled.stderr,
      /not ready within 1500 ms \(--connect-timeout\): it may not be an MCP server at that URL/,
    );
    assert.ok(stalled.elapsed < 10_000);
  });

  test('a 200 with an HTML page: the server broke the protocol, exit 6', async () => {
    const server = await plainServer((_request, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome to nginx!</body></html>');
    });
    after(() => server.close());
    const html = await run(['inspect', server.url]);
    assert.equal(html.code, 6, html.stderr);
    assert.match(
      html.stderr,
      /Content-Type "text\/html", neither application\/json nor text\/event-stream: Welcome to nginx!/,
    );
  });
});

test('--help documents every option the parser takes, the HTTP and OAuth ones and logout too', async () => {
  const { OPTIONS } = await import('../../src/cli/option-table.js');
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  for (const name of Object.keys(OPTIONS)) {
    const flag = name === 'no-validate' ? '--no-validate' : `--${name}`;
    assert.ok(help.stdout.includes(flag), `${flag} is not in --help`);
  }
  assert.match(help.stdout, /^ {2}logout <url> /m);
  assert.match(help.stdout, /<https:\/\/host\/mcp>/);
});
