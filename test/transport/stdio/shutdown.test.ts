import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import dc from 'node:diagnostics_channel';
import { once } from 'node:events';
import { test } from 'node:test';
import type { JsonRpcNotification } from '../../../src/jsonrpc/messages.js';
import {
  FINAL_WAIT_MS,
  runShutdown,
  type ShutdownTarget,
  shutdownPlan,
  windowsProcessKill,
  windowsTreeKill,
} from '../../../src/transport/stdio/shutdown.js';
import { StdioTransport } from '../../../src/transport/stdio/stdio-transport.js';
import { fixture, nodeServer } from '../../helpers/fixtures.js';
import { runHost } from '../../helpers/hosts.js';
import { guardProcesses, isRunning, waitGroupGone } from '../../helpers/processes.js';

guardProcesses();

const signals: Array<{ pid: number; signal: string }> = [];
dc.subscribe('conduit-mcp:transport:signal', (message) => {
  signals.push(message as { pid: number; signal: string });
});
const signalsTo = (pid: number) => signals.filter((entry) => entry.pid === pid).map((entry) => entry.signal);

/** Starts a server and waits for its first `count` messages (a launcher's, then its child's). */
async function started(options: ConstructorParameters<typeof StdioTransport>[0], count = 1) {
  const transport = new StdioTransport({ stderr: 'discard', ...options });
  const messages: JsonRpcNotification[] = [];
  const arrived = new Promise<void>((resolve) => {
    transport.on('message', (message) => {
      if (messages.push(message as JsonRpcNotification) === count) resolve();
    });
  });
  await transport.start();
  await arrived;
  return { transport, first: messages[0]! };
}

/** Times from close() to `exited`. */
async function timeShutdown(transport: StdioTransport) {
  const begin = performance.now();
  await transport.close();
  const closedAfter = performance.now() - begin;
  const status = await transport.exited;
  return { closedAfter, goneAfter: performance.now() - begin, status };
}

test('the escalation as data: POSIX signals the group, Windows runs taskkill on the tree, else on the pid', () => {
  assert.deepEqual(shutdownPlan('linux', 42, { stdinGrace: 2000, termGrace: 1500 }), [
    { kind: 'close-stdin' },
    { kind: 'wait', ms: 2000 },
    { kind: 'signal-group', signal: 'SIGTERM' },
    { kind: 'wait', ms: 1500 },
    { kind: 'signal-group', signal: 'SIGKILL' },
    { kind: 'wait', ms: FINAL_WAIT_MS },
  ]);
  assert.deepEqual(shutdownPlan('win32', 42, { stdinGrace: 2000, termGrace: 1500 }), [
    { kind: 'close-stdin' },
    { kind: 'wait', ms: 2000 },
    {
      kind: 'run',
      file: 'taskkill',
      args: ['/PID', '42', '/T', '/F'],
      fallback: { file: 'taskkill', args: ['/PID', '42', '/F'] },
    },
    { kind: 'wait', ms: FINAL_WAIT_MS },
  ]);
  assert.deepEqual(windowsTreeKill(7), { file: 'taskkill', args: ['/PID', '7', '/T', '/F'] });
  assert.deepEqual(windowsProcessKill(7), { file: 'taskkill', args: ['/PID', '7', '/F'] });
});

/**
 * A real process stopped by runShutdown through real commands: the run step's command and, when it
 * fails, its fallback. Returns the commands in the order they ran.
 */
async function stopWithCommands(first: readonly string[], fallback: readonly string[]) {
  const child = spawn(process.execPath, [fixture('ignore-term.mjs')], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  await once(child, 'spawn');
  const exited = once(child, 'exit');
  const ran: string[] = [];
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const target: ShutdownTarget = {
    closeStdin: () => child.stdin.end(),
    isGone: () => gone,
    leaderExited: exited,
    signalGroup: () => assert.fail('no signal step in this plan'),
    run: (file, args) => {
      ran.push([file, ...args].join(' '));
      const command = spawn(file, args, { stdio: 'ignore' });
      return new Promise((resolve) => command.on('exit', (code) => resolve(code === 0)));
    },
  };
  const pid = String(child.pid);
  const withPid = (command: readonly string[]) => command.map((arg) => arg.replace('PID', pid));
  const [file, ...args] = withPid(first);
  const [fallbackFile, ...fallbackArgs] = withPid(fallback);
  const stopped = await runShutdown(
    [
      { kind: 'close-stdin' },
      { kind: 'wait', ms: 100 },
      { kind: 'run', file: file!, args, fallback: { file: fallbackFile!, args: fallbackArgs } },
      { kind: 'wait', ms: FINAL_WAIT_MS },
    ],
    target,
  );
  assert.equal(stopped, true, 'the process was stopped');
  return ran;
}

test('a run step whose command fails (a taskkill refusing /T) runs its fallback', async () => {
  const ran = await stopWithCommands(['kill', '-s', 'NOSUCHSIGNAL', 'PID'], ['kill', '-s', 'KILL', 'PID']);
  assert.equal(ran.length, 2);
  assert.match(ran[1]!, /^kill -s KILL \d+$/);
});

test('a run step whose command succeeds does not run its fallback', async () => {
  const ran = await stopWithCommands(['kill', '-s', 'KILL', 'PID'], ['kill', '-s', 'NOSUCHSIGNAL', 'PID']);
  assert.equal(ran.length, 1);
});

test('a server that exits on EOF is gone within milliseconds and never signalled', async () => {
  const transport = new StdioTransport(nodeServer('echo.mjs'));
  await transport.start();
  const pid = transport.pid!;
  const { goneAfter, status } = await timeShutdown(transport);
  assert.deepEqual(status, { code: 0, signal: null });
  assert.ok(goneAfter < 1000, `gone after ${goneAfter} ms`);
  assert.deepEqual(signalsTo(pid), []);
  assert.equal(isRunning(pid), false);
});

test('a server that ignores EOF but honours SIGTERM goes after stdinGrace, before stdinGrace + termGrace', async () => {
  const { transport } = await started(
    nodeServer('ignore-eof.mjs', [], { stdinGrace: 1000, termGrace: 1000 }),
  );
  const pid = transport.pid!;
  const { closedAfter, goneAfter, status } = await timeShutdown(transport);
  assert.ok(closedAfter < 100, `close() resolved after ${closedAfter} ms, without waiting for the process`);
  assert.ok(goneAfter >= 950, `gone after ${goneAfter} ms, before stdinGrace`);
  assert.ok(goneAfter < 2000, `gone after ${goneAfter} ms, not before stdinGrace + termGrace`);
  assert.deepEqual(status, { code: null, signal: 'SIGTERM' });
  assert.deepEqual(signalsTo(pid), ['SIGTERM']);
});

test('a server that ignores EOF and SIGTERM is killed just after stdinGrace + termGrace', async () => {
  const { transport } = await started(nodeServer('ignore-term.mjs', [], { stdinGrace: 700, termGrace: 700 }));
  const pid = transport.pid!;
  const { goneAfter, status } = await timeShutdown(transport);
  assert.ok(goneAfter >= 1350, `gone after ${goneAfter} ms`);
  assert.ok(goneAfter < 3500, `gone after ${goneAfter} ms`);
  assert.deepEqual(status, { code: null, signal: 'SIGKILL' });
  assert.deepEqual(signalsTo(pid), ['SIGTERM', 'SIGKILL']);
});

test('the whole process group goes: a launcher whose grandchild ignores EOF and SIGTERM', async () => {
  const { transport, first } = await started(
    nodeServer('launcher.mjs', [fixture('ignore-term.mjs')], { stdinGrace: 300, termGrace: 300 }),
    2,
  );
  const { pid: launcher, child } = first.params as { pid: number; child: number };
  assert.equal(launcher, transport.pid);
  assert.equal(isRunning(child), true);
  await timeShutdown(transport);
  assert.equal(isRunning(launcher), false, 'the launcher is gone');
  assert.equal(isRunning(child), false, 'the grandchild is gone');
  assert.equal(await waitGroupGone(launcher, 0), true, 'no process of the group runs');
  assert.deepEqual(signalsTo(launcher), ['SIGTERM', 'SIGKILL']);
});

test('a launcher that exits on EOF does not leave its grandchild behind', async () => {
  const { transport, first } = await started(
    nodeServer('launcher.mjs', [fixture('ignore-eof.mjs'), '--exit-on-eof'], {
      stdinGrace: 400,
      termGrace: 400,
    }),
    2,
  );
  const { child } = first.params as { child: number };
  const { goneAfter } = await timeShutdown(transport);
  assert.equal(isRunning(child), false, 'the grandchild is gone');
  assert.ok(goneAfter >= 380, `waited stdinGrace for the group, not just the leader (${goneAfter} ms)`);
  assert.deepEqual(signalsTo(transport.pid!), ['SIGTERM']);
});

test('a server that exits on its own with a live grandchild: the group is still cleaned up', async () => {
  const { transport, first } = await started(
    nodeServer('launcher.mjs', [fixture('ignore-term.mjs'), '--exit-now'], {
      stdinGrace: 200,
      termGrace: 200,
    }),
    2,
  );
  const { child } = first.params as { child: number };
  const reason = transport.closeReason ?? (await once(transport, 'close'))[0];
  assert.deepEqual(reason, { type: 'exit_status', status: 3, signal: null });
  assert.equal(isRunning(child), true, 'the grandchild outlived the launcher');
  await transport.exited;
  assert.equal(isRunning(child), false);
});

/** Runs test/fixtures/hosts/host.ts, which starts a server and ends in the given way. */
async function runModeHost(mode: string, server: string) {
  const { code, stdout: output, stderr: errors } = await runHost('host.ts', [mode, server]);
  const serverPid = Number.parseInt(output, 10);
  assert.ok(
    serverPid > 0,
    `the host printed the server pid (stdout ${JSON.stringify(output)}, stderr ${errors})`,
  );
  return { code: code as number, serverPid, errors };
}

test('a script that closes its transport and returns stays alive until the server is gone', async () => {
  const { code, serverPid } = await runModeHost('close-and-return', 'ignore-eof.mjs');
  assert.equal(code, 0);
  assert.equal(isRunning(serverPid), false, 'the server was gone before the host exited');
});

test('process.exit() with a live server kills it synchronously from the exit hook', async () => {
  const { code, serverPid } = await runModeHost('exit', 'ignore-term.mjs');
  assert.equal(code, 0);
  assert.equal(await waitGroupGone(serverPid, 1000), true, 'the server group was killed');
});

test('an uncaught exception with a live server kills it too', async () => {
  const { code, serverPid, errors } = await runModeHost('throw', 'ignore-term.mjs');
  assert.notEqual(code, 0);
  assert.match(errors, /deliberate uncaught exception/);
  assert.equal(await waitGroupGone(serverPid, 1000), true, 'the server group was killed');
});
