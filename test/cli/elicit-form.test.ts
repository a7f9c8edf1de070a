// Issue 35, item 21: the terminal elicitation form shows defaults and the choices of every enum
// form (enum, titled oneOf/anyOf consts, arrays of them), checks each field as it is entered
// (formats included) and asks that field again, instead of losing the whole form at the end.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildOnce, startInTerminal } from '../helpers/cli.js';
import { fixture } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';

guardProcesses();
buildOnce();

test('a form on the terminal: choices and defaults shown, each field checked and asked again', async () => {
  const terminal = startInTerminal(['call', 'form', '--', process.execPath, fixture('form-server.mjs')]);
  await terminal.waitFor(/server asks: Sign up/);
  await terminal.waitFor(/Email\*: $/);
  terminal.type('not-an-address\r');
  await terminal.waitFor(/\(String does not match format "email"\.\)\s+Email\*: $/);
  terminal.type('ada@example.com\r');
  await terminal.waitFor(/Size \(1=Small, 2=Large\) \[default: Large\]: $/);
  terminal.type('\r');
  await terminal.waitFor(/Tags\* \(1=Alpha, 2=Beta, 3=Gamma; several: 1,3\): $/);
  terminal.type('1,7\r');
  await terminal.waitFor(/\(choose from Alpha, Beta, Gamma, by number, separated by commas\)\s+Tags\*.*: $/);
  terminal.type('1,3\r');
  await terminal.waitFor(/Count \[default: 2\]: $/);
  terminal.type('9\r');
  await terminal.waitFor(/\(9 is greater than 5\.\)\s+Count \[default: 2\]: $/);
  terminal.type('\r');
  await terminal.waitFor(/Plan \(1=Free, 2=Pro\): $/);
  terminal.type('2\r');
  await terminal.waitFor(/Born: $/);
  terminal.type('yesterday\r');
  await terminal.waitFor(/\(String does not match format "date"\.\)\s+Born: $/);
  terminal.type('1815-12-10\r');
  await terminal.waitFor(/Send\? \[Y\/n, c to cancel\] $/);
  terminal.type('\r');
  const { code, screen } = await terminal.finished;
  assert.equal(code, 0, screen);
  const reply = JSON.parse(/\{"action".*\}/.exec(screen)![0]);
  assert.deepEqual(reply, {
    action: 'accept',
    content: {
      email: 'ada@example.com',
      size: 'l',
      tags: ['a', 'c'],
      count: 2,
      plan: 'pro',
      born: '1815-12-10',
    },
  });
});
