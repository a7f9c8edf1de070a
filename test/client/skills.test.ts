// SEP-2640 skills against a real stdio fixture server (test/fixtures/servers/skills.mjs): listing
// reads no file, loading verifies size, digest and frontmatter, tampered files are refused, pages
// are walked, and the YAML library loads only when a skill is loaded.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '../../src/client/client.js';
import type { SkillEntry } from '../../src/client/skills.js';
import { CapabilityError, SkillVerificationError } from '../../src/errors.js';
import { fixture, nodeServer } from '../helpers/fixtures.js';
import { guardProcesses } from '../helpers/processes.js';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});
guardProcesses();

const QUICK = { stdinGrace: 300, termGrace: 300, stderr: 'discard' } as const;
const PDF = 'skill://pdf-processing/SKILL.md';
const FORMS = 'skill://pdf-processing/references/FORMS.md';
const LOGO = 'skill://pdf-processing/assets/logo.bin';

async function skillsClient(args: string[] = [], server = 'skills.mjs') {
  const client = new Client({
    name: 'skills',
    transport: { type: 'stdio', ...nodeServer(server, args, QUICK) },
    protocol: 'legacy',
    reconnect: { maxReconnects: 0 },
  });
  clients.push(client);
  await client.connect();
  /** Every resources/read the server has answered, in order. */
  const reads = async (): Promise<string[]> => {
    const result = await client.callTool({ name: 'reads', arguments: {} });
    return JSON.parse((result.content[0] as { text: string }).text);
  };
  return { client, reads };
}

const pdfEntry = (skills: SkillEntry[]) => skills.find((skill) => skill.uri === PDF)!;

describe('skills', () => {
  test('listing reads no skill file; loading reads the SKILL.md only, other files on demand', async () => {
    const { client, reads } = await skillsClient();
    const { skills } = await client.listSkills();
    assert.deepEqual(await reads(), []);
    const skill = await client.loadSkill(pdfEntry(skills));
    assert.deepEqual(await reads(), [PDF]);
    assert.deepEqual(skill.frontmatter, {
      name: 'pdf-processing',
      description: 'Extract, fill, and assemble PDF documents',
      metadata: { version: '1.0', tags: ['pdf', 'forms'] },
    });
    assert.equal(skill.body, '\nUse FORMS.md to fill forms.\n');
    const forms = await client.readSkillFile(skill.entry, FORMS);
    assert.equal(forms.text, 'How to fill a form.\n');
    const logo = await client.readSkillFile(skill.entry, LOGO);
    assert.deepEqual([...logo.bytes], [0, 1, 2, 255]);
    assert.deepEqual(await reads(), [PDF, FORMS, LOGO]);
  });

  test('without a cursor every page is walked; with one, that page and its nextCursor', async () => {
    const { client } = await skillsClient(['--page-size', '1']);
    const all = await client.listSkills();
    assert.deepEqual(
      all.skills.map((skill) => skill.uri),
      [PDF, 'skill://csv-tools/SKILL.md'],
    );
    assert.equal(all.nextCursor, undefined);
    const second = await client.listSkills({ cursor: '1' });
    assert.deepEqual(
      second.skills.map((skill) => skill.uri),
      ['skill://csv-tools/SKILL.md'],
    );
    const first = await client.listSkills({ cursor: '0' });
    assert.equal(first.nextCursor, '1');
  });

  for (const [tamper, problem] of [
    ['digest', /the server sent content with digest sha256:[0-9a-f]{64}, its entry lists sha256:/],
    ['size', /the server sent \d+ bytes, its entry lists \d+/],
    [
      'frontmatter',
      /frontmatter field "metadata" is \{"version":"2\.0".* in the file but \{"version":"1\.0"/,
    ],
  ] as const) {
    test(`a SKILL.md whose ${tamper} does not match its entry is refused and not loaded`, async () => {
      const { client, reads } = await skillsClient(['--tamper', tamper]);
      const { skills } = await client.listSkills();
      await assert.rejects(client.loadSkill(pdfEntry(skills)), (error) => {
        assert.ok(error instanceof SkillVerificationError);
        assert.equal(error.code, 'CONDUIT_SKILL_VERIFICATION');
        assert.equal(error.check, tamper);
        assert.equal(error.uri, PDF);
        assert.equal(error.field, tamper === 'frontmatter' ? 'metadata' : undefined);
        assert.match(error.message, problem);
        assert.match(
          error.message,
          /^skills: skill file skill:\/\/pdf-processing\/SKILL\.md: .*content was not used/,
        );
        return true;
      });
      assert.deepEqual(await reads(), [PDF]);
    });
  }

  test('a file not listed in the entry is refused before anything is read', async () => {
    const { client, reads } = await skillsClient();
    const { skills } = await client.listSkills();
    await assert.rejects(
      client.readSkillFile(pdfEntry(skills), 'skill://pdf-processing/secret.md'),
      (error) => error instanceof SkillVerificationError && error.check === 'unlisted',
    );
    assert.deepEqual(await reads(), []);
  });

  test('skills/list to a server without the extension fails at once with CapabilityError', async () => {
    const { client } = await skillsClient([], 'named-tools.mjs');
    await assert.rejects(
      client.listSkills(),
      (error) =>
        error instanceof CapabilityError &&
        /does not declare the io\.modelcontextprotocol\/skills extension needed by skills\/list/.test(
          error.message,
        ),
    );
  });

  test('the yaml library loads on the first skill loaded, not on connect or listing', async () => {
    const script = `
      import { createRequire } from 'node:module';
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => /node_modules\\/yaml\\//.test(k));
      const { Client } = await import('./src/index.ts');
      const client = new Client({ name: 'x', protocol: 'legacy', transport: { type: 'stdio', command: process.execPath, args: [${JSON.stringify(fixture('skills.mjs'))}] } });
      await client.connect();
      const { skills } = await client.listSkills();
      const before = loaded();
      await client.loadSkill(skills[0]);
      const after = loaded();
      await client.close();
      console.log(JSON.stringify({ before, after }));
    `;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: path.resolve(import.meta.dirname, '../..'), timeout: 30_000 },
    );
    assert.deepEqual(JSON.parse(stdout), { before: false, after: true });
  });
});
