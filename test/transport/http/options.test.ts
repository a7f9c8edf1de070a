// HttpOptions validation: secure defaults and messages that name the key and the fix.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client, ConfigError, Secret } from '../../../src/index.js';
import { isLoopbackName } from '../../../src/loopback.js';
import { resolveHttpOptions } from '../../../src/transport/http/options.js';

function rejects(raw: Record<string, unknown>, key: string, message: RegExp): void {
  assert.throws(
    () => new Client({ name: 'x', transport: { type: 'http', ...raw } as never }),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, String(error));
      assert.equal(error.key, key);
      assert.match(error.message, message);
      return true;
    },
  );
}

describe('HttpOptions', () => {
  test('defaults', () => {
    const options = resolveHttpOptions({ url: 'https://mcp.example.com/mcp#frag' });
    assert.equal(options.url.href, 'https://mcp.example.com/mcp');
    assert.equal(options.maxMessageBytes, 8 * 1024 * 1024);
    assert.equal(options.legacySse, true);
    assert.equal(options.allowInsecure, false);
    assert.deepEqual(options.headers, []);
    assert.equal(options.bearer, undefined);
  });

  test('null is a wrong value, as for stdio: only an absent option takes its default', () => {
    for (const key of [
      'headers',
      'maxMessageBytes',
      'legacySse',
      'allowInsecure',
      'headersTimeout',
      'bodyTimeout',
    ]) {
      assert.throws(
        () =>
          new Client({ name: 'x', transport: { type: 'http', url: 'https://x/mcp', [key]: null } as never }),
        (error: unknown) => error instanceof ConfigError && error.key === `transport.${key}`,
        key,
      );
    }
    assert.equal(
      resolveHttpOptions({ url: 'https://x/mcp', maxMessageBytes: undefined }).maxMessageBytes,
      8 * 1024 * 1024,
    );
  });

  test('plain http only to loopback, unless allowInsecure', () => {
    for (const url of ['http://127.0.0.1:3000/mcp', 'http://localhost/mcp', 'http://[::1]:8080/mcp']) {
      assert.equal(resolveHttpOptions({ url }).url.protocol, 'http:');
    }
    rejects(
      { url: 'http://mcp.example.com/mcp' },
      'transport.url',
      /not loopback; use https:, or set allowInsecure/,
    );
    assert.equal(
      resolveHttpOptions({ url: 'http://mcp.example.com/mcp', allowInsecure: true }).url.protocol,
      'http:',
    );
    assert.ok(isLoopbackName('127.1.2.3'));
    assert.ok(!isLoopbackName('127.0.0.1.nip.io'));
    assert.equal(resolveHttpOptions({ url: 'http://[::ffff:127.0.0.1]:8080/mcp' }).url.protocol, 'http:');
    assert.throws(() => resolveHttpOptions({ url: 'http://[::ffff:10.0.0.1]/mcp' }), /not loopback/);
  });

  test('an endpoint resolved again is checked again under its own allowInsecure', () => {
    const insecure = 'http://mcp.example.com/again';
    assert.equal(resolveHttpOptions({ url: insecure, allowInsecure: true }).url.href, insecure);
    assert.throws(() => resolveHttpOptions({ url: insecure }), /not loopback/);
    assert.equal(resolveHttpOptions({ url: insecure, allowInsecure: true }).url.href, insecure);
    assert.throws(() => resolveHttpOptions({ url: insecure }), /not loopback/);
    const loopback = 'http://127.0.0.1:3000/mcp#part';
    const first = resolveHttpOptions({ url: loopback }).url;
    const second = resolveHttpOptions({ url: loopback }).url;
    assert.equal(second.href, 'http://127.0.0.1:3000/mcp');
    assert.equal(first.href, second.href);
    assert.notEqual(first, second, 'each resolve has a URL of its own, which no other caller can change');
    assert.throws(() => resolveHttpOptions({ url: 'https://user:pw@example.com/mcp' }), /credentials/);
    assert.throws(() => resolveHttpOptions({ url: 'https://user:pw@example.com/mcp' }), /credentials/);
  });

  test('refuses other schemes, credentials in the URL and garbage', () => {
    rejects({ url: 'ftp://example.com/' }, 'transport.url', /https:/);
    rejects({ url: 'https://user:pw@example.com/mcp' }, 'transport.url', /must not carry credentials/);
    rejects({ url: 'not a url' }, 'transport.url', /absolute http\(s\) URL/);
    rejects({}, 'transport.url', /absolute http\(s\) URL, got undefined/);
  });

  test('headers: names are tokens, the protocol headers are ours, Authorization must be a Secret', () => {
    rejects(
      { url: 'https://x/mcp', headers: { 'Bad Name': 'v' } },
      'transport.headers.Bad Name',
      /not a valid header name/,
    );
    rejects(
      { url: 'https://x/mcp', headers: { 'Mcp-Session-Id': 'v' } },
      'transport.headers.Mcp-Session-Id',
      /sets Mcp-Session-Id itself/,
    );
    rejects(
      { url: 'https://x/mcp', headers: { 'X-A': 'a\r\nX-B: b' } },
      'transport.headers.X-A',
      /without CR, LF or NUL/,
    );
    rejects(
      { url: 'https://x/mcp', headers: { Authorization: 'Bearer t' } },
      'transport.headers.Authorization',
      /must be a Secret/,
    );
    const secret = new Secret('k');
    const options = resolveHttpOptions({
      url: 'https://x/mcp',
      headers: { 'X-Key': secret, Authorization: new Secret('b') },
    });
    assert.equal(options.headers[0]![1], secret);
  });

  test('auth takes only a bearer token; a typo names the key', () => {
    rejects({ url: 'https://x/mcp', auth: { bearer: '' } }, 'transport.auth.bearer', /must be a Secret/);
    rejects(
      { url: 'https://x/mcp', auth: { token: new Secret('t') } },
      'transport.auth.token',
      /is not an option/,
    );
    rejects(
      { url: 'https://x/mcp', maxMessageBytes: 0 },
      'transport.maxMessageBytes',
      /integer >= 1 \(bytes\)/,
    );
    rejects(
      { url: 'https://x/mcp', endpoint: 'https://x' },
      'transport.endpoint',
      /did you mean transport.url/,
    );
  });

  test('a Secret value never shows in a ConfigError', () => {
    assert.throws(
      () =>
        resolveHttpOptions({
          url: 'https://x/mcp',
          headers: { 'X-Key': new Secret('hunter2'), 'X-Key2': 5 },
        }),
      (error: Error) => !error.message.includes('hunter2') && /X-Key2/.test(error.message),
    );
  });
});
