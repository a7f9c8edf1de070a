// The published .d.ts files as a TypeScript user meets them: the packed tarball installed into an
// empty project, every .d.ts it ships compiled with `skipLibCheck: false` and strict settings
// against each @types/node major from the oldest Node `engines` allows to the newest published.
// The majors are installed once, side by side, under npm aliases (@types/node-20, ...); before
// each compile node_modules/@types/node is pointed at one of them. The TypeScript is the
// repository's own version. Needs the npm registry. Usage: node scripts/ci/package-types.mjs
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const packageJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const typescriptVersion = JSON.parse(
  readFileSync(path.join(root, 'node_modules/typescript/package.json'), 'utf8'),
).version;
// Under `npm run`, npm_config_* variables would make the nested npm act on this repository.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

async function npm(args, cwd) {
  const { stdout } = await run('npm', args, { cwd, env, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** Every @types/node major published, from the one of the oldest Node `engines` allows. */
async function typesNodeMajors() {
  const oldest = Number(/(\d+)/.exec(packageJson.engines.node)?.[1]);
  const versions = JSON.parse(await npm(['view', '@types/node', 'versions', '--json'], root));
  const majors = new Set(versions.filter((v) => !v.includes('-')).map((v) => Number(v.split('.')[0])));
  return [...majors].filter((major) => major >= oldest).sort((a, b) => a - b);
}

const CONSUMER = `import * as conduit from 'conduit-mcp';
import { Client, type ClientOptions, type StdioOptions } from 'conduit-mcp';

const transport: StdioOptions = { command: 'node', args: ['server.js'] };
const options: ClientOptions = { name: 'types', transport: { type: 'stdio', ...transport } };
export const client: Client = new Client(options);
export const exported: string[] = Object.keys(conduit);
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    noEmit: true,
  },
  // Every .d.ts the package ships, not only those its entry point reaches.
  include: ['consumer.ts', 'node_modules/conduit-mcp/dist/**/*.d.ts'],
  exclude: [],
};

const started = performance.now();
const majors = await typesNodeMajors();
const directory = mkdtempSync(path.join(tmpdir(), 'conduit-types-'));
try {
  // prepack builds dist/ from the sources, so what is checked is what the sources give.
  const packed = JSON.parse(await npm(['pack', '--json', '--pack-destination', directory], root));
  const tarball = path.join(directory, packed[0].filename);
  writeFileSync(path.join(directory, 'package.json'), '{ "name": "types-consumer", "private": true }\n');
  const aliases = majors.map((major) => `@types/node-${major}@npm:@types/node@${major}`);
  await npm(
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      tarball,
      `typescript@${typescriptVersion}`,
      ...aliases,
    ],
    directory,
  );
  writeFileSync(path.join(directory, 'consumer.ts'), CONSUMER);
  writeFileSync(path.join(directory, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));

  const tsc = path.join(directory, 'node_modules/typescript/bin/tsc');
  const link = path.join(directory, 'node_modules/@types/node');
  const failed = [];
  for (const major of majors) {
    rmSync(link, { force: true });
    symlinkSync(`node-${major}`, link, 'junction');
    const installed = JSON.parse(readFileSync(path.join(link, 'package.json'), 'utf8')).version;
    const result = await run(process.execPath, [tsc, '-p', directory], { cwd: directory, env }).then(
      () => undefined,
      (error) => `${error.stdout ?? ''}${error.stderr ?? ''}`.trim() || error.message,
    );
    console.log(`@types/node ${installed}, TypeScript ${typescriptVersion}: ${result ? 'FAILED' : 'ok'}`);
    if (result) failed.push(`@types/node ${installed}:\n${result}`);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  if (failed.length > 0) {
    console.error(`package-types: the published .d.ts files do not compile (skipLibCheck: false):\n`);
    console.error(failed.join('\n\n'));
    process.exitCode = 1;
  } else {
    console.log(`package-types: every .d.ts compiles on @types/node ${majors.join(', ')} (${seconds} s)`);
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}
