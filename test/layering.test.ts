// The layering of ARCHITECTURE.md, checked in the imports themselves: a new transport or era must
// plug in at the seams (the transport factory, the Session interface), never around them.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const src = path.resolve(import.meta.dirname, '../src');

function sources(directory = src): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every module a file imports or re-exports, resolved to a path under src/ (or kept as `node:x`). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/^(?:import|export)\b[^;]*?from '([^']+)';/gms)].map((m) => m[1]!);
  return specifiers.map((specifier) =>
    specifier.startsWith('.') ? path.relative(src, path.resolve(path.dirname(file), specifier)) : specifier,
  );
}

const relative = (file: string) => path.relative(src, file);
const files = sources();
const under = (folder: string) => files.filter((file) => relative(file).startsWith(`${folder}/`));

test('errors.ts and the close reasons import from no layer', () => {
  const neutral = [path.join(src, 'errors.ts'), ...under('close-reason')];
  for (const file of neutral) {
    for (const imported of importsOf(file)) {
      assert.ok(imported.startsWith('close-reason/'), `${relative(file)} imports ${imported}`);
    }
  }
});

test('the CLI uses only what src/index.ts exports', () => {
  for (const file of under('cli')) {
    for (const imported of importsOf(file)) {
      const allowed = imported === 'index.js' || imported.startsWith('cli/') || imported.startsWith('node:');
      assert.ok(allowed, `${relative(file)} imports ${imported}`);
    }
  }
});

test('above the eras nothing names a session class; above the transports nothing names a concrete one', () => {
  const aboveEras = under('client').filter((file) => !relative(file).startsWith('client/eras/'));
  for (const file of aboveEras) {
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /\b(ModernSession|LegacySession)\b/, `${relative(file)} names a session class`);
    for (const imported of importsOf(file)) {
      assert.ok(
        !['client/eras/modern.js', 'client/eras/legacy.js'].includes(imported),
        `${relative(file)} imports ${imported}`,
      );
      assert.ok(!imported.startsWith('transport/stdio/'), `${relative(file)} imports ${imported}`);
    }
    assert.doesNotMatch(text, /\bStdioTransport\b/, `${relative(file)} names StdioTransport`);
  }
});

test('protocol versions are written only in protocol/versions.ts', () => {
  for (const file of files) {
    if (relative(file) === path.join('protocol', 'versions.ts')) continue;
    assert.doesNotMatch(readFileSync(file, 'utf8'), /'\d{4}-\d{2}-\d{2}'/, relative(file));
  }
});

test('one isPlainObject', () => {
  const defining = files.filter((file) => /function isPlainObject\b/.test(readFileSync(file, 'utf8')));
  assert.deepEqual(defining.map(relative), ['validate.ts']);
});

test('outside src/auth, only its options and token stores are imported statically: the flow loads when OAuth is configured', () => {
  const light = new Set(['auth/options.js', 'auth/token-store.js', 'auth/logout.js']);
  for (const file of files.filter((f) => !relative(f).startsWith('auth/'))) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from '([^']+)';/gms)) {
      const target = path.relative(src, path.resolve(path.dirname(file), match[1]!));
      if (target.startsWith('auth/')) assert.ok(light.has(target), `${relative(file)} imports ${target}`);
    }
    assert.doesNotMatch(text, /from 'oauth4webapi'/, `${relative(file)} imports oauth4webapi`);
  }
});

test('the transport seam speaks messages only: no era, MCP method, _meta or OAuth word in Transport or its events', () => {
  const text = readFileSync(path.join(src, 'transport/transport.ts'), 'utf8');
  for (const name of ['TransportEvents', 'Transport']) {
    const block = text.match(new RegExp(`^export interface ${name}\\b[^{]*\\{[\\s\\S]*?^\\}`, 'm'))?.[0];
    assert.ok(block, `transport.ts declares ${name}`);
    assert.doesNotMatch(
      block,
      /\b(era|eras|modern|legacy|initialize|_meta|meta|tools?|OAuth|consent|awaitingUser|PreparedMeta|ResultMap)\b|\w+\/\w+/i,
      `${name} names something above the seam`,
    );
  }
});

test('nothing subclasses Client or overrides its emit; outside src/client only its public modules are imported', () => {
  const publicModules = new Set(['client/client.js', 'client/options.js']);
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /\bextends Client\b/, `${relative(file)} subclasses Client`);
    if (relative(file).startsWith('client/') || relative(file) === 'index.ts') continue;
    assert.doesNotMatch(text, /override emit\b/, `${relative(file)} overrides emit`);
    for (const match of text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from '([^']+)';/gms)) {
      const target = path.relative(src, path.resolve(path.dirname(file), match[1]!));
      if (target.startsWith('client/'))
        assert.ok(publicModules.has(target), `${relative(file)} imports ${target} at run time`);
    }
  }
});

test('no module keeps mutable state across instances, but the memo of a lazily loaded library', () => {
  const lazyImports = /^let (loading|loaded|library)\b/;
  // Compiled JSON Schemas are a memo of a pure function, by the schema's text, bounded: one
  // compilation per schema per process, whichever client listed it.
  const allowed = new Set(['protocol/schema-validation.ts: let compilations = 0;']);
  for (const file of files) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.startsWith('let ') || lazyImports.test(line)) continue;
      if (allowed.has(`${relative(file)}: ${line.trim()}`)) continue;
      assert.fail(`${relative(file)}: module-level ${line.trim()}`);
    }
  }
});

test('every file in src and bench is under 400 lines', () => {
  const bench = path.resolve(src, '../bench');
  for (const file of [...files, ...sources(bench)]) {
    const lines = readFileSync(file, 'utf8').split('\n').length - 1;
    assert.ok(lines <= 400, `${path.relative(path.resolve(src, '..'), file)} has ${lines} lines`);
  }
});
