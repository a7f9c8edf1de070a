import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { format, inspect } from 'node:util';
import { serialize as v8Serialize } from 'node:v8';
import { exposeSecret, isSecret, Secret } from '../src/secret.js';

const VALUE = 'sk-live-7f3a9c2e41b8d6';
const repoRoot = path.resolve(import.meta.dirname, '..');

function assertHidden(text: string, where: string): void {
  assert.equal(typeof text, 'string', where);
  assert.ok(!text.includes(VALUE), `${where} shows the value: ${text}`);
}

describe('a Secret never shows its value', () => {
  const secret = new Secret(VALUE);
  const fromFunction = new Secret(() => VALUE);

  test('String(), template literals, concatenation, join', () => {
    for (const s of [secret, fromFunction]) {
      assert.equal(String(s), '[Secret]');
      assert.equal(`${s}`, '[Secret]');
      assert.equal(`token=${s}`, 'token=[Secret]');
      // biome-ignore lint/style/useTemplate: concatenation is what is tested
      assert.equal('' + s, '[Secret]');
      // biome-ignore lint/style/useTemplate: concatenation is what is tested
      assert.equal(s + '', '[Secret]');
      assert.equal([s, s].join(','), '[Secret],[Secret]');
      assert.equal(s.toString(), '[Secret]');
    }
  });

  test('JSON.stringify, alone and nested', () => {
    assert.equal(JSON.stringify(secret), '"[Secret]"');
    const nested = {
      env: { API_TOKEN: secret, OTHER: fromFunction },
      list: [secret],
      deep: { a: { b: [secret] } },
    };
    const text = JSON.stringify(nested);
    assertHidden(text, 'JSON.stringify');
    assert.deepEqual(JSON.parse(text), {
      env: { API_TOKEN: '[Secret]', OTHER: '[Secret]' },
      list: ['[Secret]'],
      deep: { a: { b: ['[Secret]'] } },
    });
  });

  test('util.inspect alone and nested in objects, arrays, Maps and Sets', () => {
    assert.equal(inspect(secret), '[Secret]');
    const nested = {
      env: { API_TOKEN: secret },
      list: [secret, [secret]],
      map: new Map<unknown, unknown>([
        ['token', secret],
        [secret, 'as a key'],
      ]),
      set: new Set([secret]),
      deep: { a: { b: { c: { d: secret } } } },
    };
    for (const options of [
      {},
      { showHidden: true },
      { depth: Number.POSITIVE_INFINITY },
      { showHidden: true, depth: null },
    ]) {
      const text = inspect(nested, options);
      assertHidden(text, `inspect ${JSON.stringify(options)}`);
      assert.ok(text.includes('[Secret]'));
    }
    assert.match(inspect(nested, { depth: Number.POSITIVE_INFINITY }), /d: \[Secret\]/);
  });

  test('util.inspect of an Error carrying it as a property and as its cause', () => {
    const error = Object.assign(new Error('spawn failed', { cause: secret }), {
      token: secret,
      env: { T: secret },
    });
    const wrapper = new Error('outer', { cause: error });
    for (const options of [{}, { showHidden: true, depth: Number.POSITIVE_INFINITY }]) {
      const text = inspect(wrapper, options);
      assertHidden(text, 'inspect(error)');
      assert.match(text, /token: \[Secret\]/);
      assert.match(text, /\[cause\]: \[Secret\]/);
    }
  });

  test('util.inspect with customInspect off, and util.format', () => {
    assertHidden(inspect(secret, { customInspect: false, showHidden: true }), 'customInspect: false');
    assertHidden(
      format('%s %o %O %j %d %i %f', secret, secret, secret, secret, secret, secret, secret),
      'format',
    );
    assertHidden(format(secret, secret), 'format without a pattern');
  });

  test('no own property, frozen, and nothing in a structured clone', () => {
    assert.deepEqual(Reflect.ownKeys(secret), []);
    assert.ok(Object.isFrozen(secret));
    assertHidden(JSON.stringify(structuredClone(secret)), 'structuredClone');
    assertHidden(v8Serialize(secret).toString('latin1'), 'v8.serialize');
  });

  test('console.log, console.error and console.dir in a real process', () => {
    // The value reaches the child through its environment, so its source never holds it.
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { Secret } from ${JSON.stringify(pathToFileURL(path.join(repoRoot, 'src/secret.js')).href)};
const secret = new Secret(process.env.SECRET_UNDER_TEST);
const fromFunction = new Secret(() => process.env.SECRET_UNDER_TEST);
console.log(secret);
console.log('token: %s, %o, %j', secret, secret, secret);
console.log({ env: { TOKEN: secret, OTHER: fromFunction }, list: [secret], map: new Map([['t', secret]]) });
console.log(Object.assign(new Error('failed', { cause: secret }), { token: secret }));
console.error(secret, { secret });
console.dir({ a: { b: { c: { d: secret } } } }, { depth: Infinity, showHidden: true });
console.info(\`\${secret}\`);
console.table([{ secret }]);`,
      ],
      { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, SECRET_UNDER_TEST: VALUE }, timeout: 30_000 },
    );
    assert.equal(child.status, 0, child.stderr);
    assertHidden(child.stdout, 'stdout');
    assertHidden(child.stderr, 'stderr');
    assert.equal(child.stdout.split('[Secret]').length - 1 >= 12, true, child.stdout);
    assert.match(child.stderr, /\[Secret\]/);
  });
});

describe('exposeSecret', () => {
  test('returns a string value', async () => {
    assert.equal(await exposeSecret(new Secret(VALUE)), VALUE);
    assert.equal(await exposeSecret(new Secret('')), '');
  });

  test('calls a function source on every call', async () => {
    let calls = 0;
    const secret = new Secret(() => `token-${++calls}`);
    assert.equal(calls, 0, 'not called on construction');
    assert.equal(await exposeSecret(secret), 'token-1');
    assert.equal(await exposeSecret(secret), 'token-2');
    assert.equal(calls, 2);
    String(secret);
    JSON.stringify(secret);
    inspect(secret);
    assert.equal(calls, 2, 'printing never calls it');
  });

  test('awaits an async function source', async () => {
    const secret = new Secret(async () => VALUE);
    assert.equal(await exposeSecret(secret), VALUE);
  });

  test('a function returning a non-string rejects with a TypeError that does not show the result', async () => {
    const results: unknown[] = [{ token: VALUE }, [VALUE], 73195024, null, undefined, Buffer.from(VALUE)];
    for (const result of results) {
      const secret = new Secret(() => result as string);
      await assert.rejects(exposeSecret(secret), (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, /must return a string/);
        assertHidden(error.message, 'the message');
        assert.ok(!error.message.includes('73195024'));
        assertHidden(inspect(error, { showHidden: true, depth: Number.POSITIVE_INFINITY }), 'the error');
        return true;
      });
    }
    await assert.rejects(exposeSecret(new Secret(async () => 42 as unknown as string)), TypeError);
  });

  test('rejects what is not a Secret', async () => {
    const fake = Object.create(Secret.prototype) as Secret;
    await assert.rejects(exposeSecret(fake), { name: 'TypeError', message: 'not a Secret of conduit-mcp' });
  });
});

describe('new Secret', () => {
  test('takes only a string or a function, and the error does not show the value', () => {
    const wrong: unknown[] = [
      60728391,
      null,
      undefined,
      true,
      { value: VALUE },
      [VALUE],
      new String(VALUE),
      5n,
    ];
    for (const value of wrong) {
      assert.throws(
        () => new Secret(value as string),
        (error: unknown) => {
          assert.ok(error instanceof TypeError);
          assert.match(error.message, /^Secret takes a string or a function returning one, got \w+$/);
          assertHidden(error.message, 'the message');
          assert.ok(!error.message.includes('60728391'));
          return true;
        },
      );
    }
  });

  test('isSecret', () => {
    assert.equal(isSecret(new Secret('x')), true);
    assert.equal(isSecret(new Secret(() => 'x')), true);
    assert.equal(isSecret('[Secret]'), false);
    assert.equal(isSecret({ toString: () => '[Secret]' }), false);
    assert.equal(isSecret(null), false);
  });
});
