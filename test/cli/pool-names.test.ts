// Issue 35, item 17: a name `tools --config` prints can be called as printed, and no name (nor the
// fix at the end of an ERROR) is cut: on a terminal the other columns wrap to fit it.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { buildOnce, run, startInTerminal } from '../helpers/cli.js';
import { fixture, temporaryDirectory } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';

guardProcesses();
buildOnce();

/** A server name long enough that its pool names pass the 40 characters a name column used to keep. */
const LONG = 'a-rather-long-server-name-for-files';

function config(): string {
  const file = path.join(temporaryDirectory(), 'mcp.json');
  const servers = {
    [LONG]: { command: process.execPath, args: [fixture('cli-server.mjs')] },
    nowhere: {
      command: process.execPath,
      args: [fixture('cli-server.mjs')],
      cwd: '/no/such/directory/at/all',
    },
  };
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

test('call <name> --config <file> calls a tool by the name tools --config prints', async () => {
  const file = config();
  const listed = await run(['tools', '--config', file]);
  assert.equal(listed.code, 0, listed.stderr);
  const names = [...listed.stdout.matchAll(/^ {2}(\S+)/gm)].map((match) => match[1]!).slice(1);
  const echo = names.find((name) => name.endsWith('__echo'));
  assert.equal(echo, `${LONG}__echo`, `the printed names: ${names.join(', ')}`);
  const called = await run(['call', echo!, '--arg', 'text=as printed', '--arg', 'count=2', '--config', file]);
  assert.equal(called.code, 0, called.stderr);
  assert.equal(called.stdout, '{"text":"as printed","count":2}\n');
  const typo = await run(['call', `${LONG}__ecoh`, '--config', file]);
  assert.equal(typo.code, 2, typo.stderr);
  assert.match(typo.stderr, new RegExp(`has no tool "${LONG}__ecoh"; did you mean ${LONG}__echo\\?`));
});

test('on a narrow terminal, names stay whole and the other columns wrap; piped, every cell is whole', async () => {
  const file = config();
  const terminal = startInTerminal(['tools', '--config', file], { columns: 70 });
  const { code, screen } = await terminal.finished;
  assert.equal(code, 0, screen);
  const lines = screen.split(/\r?\n/).filter((line) => line.startsWith('  '));
  assert.ok(
    lines.some((line) => line.startsWith(`  ${LONG}__echo `)),
    screen,
  );
  // The names take 45 columns; the two other columns are narrowed to their floor (12 each).
  assert.ok(
    lines.every((line) => line.trimEnd().length <= 75),
    screen,
  );
  // The typed tool's parameters, longer than the terminal is wide, are all there across lines.
  const typed = lines.findIndex((line) => line.startsWith(`  ${LONG}__typed`));
  const wrapped = lines
    .slice(typed, typed + 20)
    .map((line) => line.slice(`  ${LONG}__typed  `.length))
    .join('')
    .replace(/\s+/g, '');
  assert.ok(
    wrapped.startsWith(
      'n:integer|null,tags:array|null,flag:boolean|null,either:string|number,name:string,point:object',
    ),
    screen,
  );

  const servers = await run(['servers', '--config', file]);
  assert.equal(servers.code, 3, servers.stderr);
  assert.match(servers.stdout, /^ {2}nowhere +failed +- +- +.*: create it or fix the path$/m);
  const narrow = startInTerminal(['servers', '--config', file], { columns: 60 });
  const shown = await narrow.finished;
  assert.equal(shown.code, 3, shown.screen);
  const flat = shown.screen.replace(/\r?\n +/g, ' ');
  assert.match(flat, /create it or fix the path/, shown.screen);
});
