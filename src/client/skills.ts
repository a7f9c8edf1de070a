import { createHash } from 'node:crypto';
import { SkillVerificationError } from '../errors.js';
import type { ReadResourceResult } from '../protocol/results.js';

export { SKILLS_EXTENSION } from '../protocol/extensions.js';

/** One file of a skill as `skills/list` lists it: what its content must hash to and weigh. */
export interface SkillFile {
  /** The file's resource URI. */
  uri: string;
  /** `sha256:` and the lowercase hex digest of the file's bytes. */
  digest: string;
  /** The file's length in bytes. */
  size: number;
  [key: string]: unknown;
}

/** One entry of `skills/list`. `resources` is `'dynamic'` when the server lists no files. */
export interface SkillEntry {
  /** The skill's SKILL.md, e.g. `skill://pdf-processing/SKILL.md`. */
  uri: string;
  /** The SKILL.md frontmatter fields as listed (e.g. `name`, `description`); the loaded file must match them. */
  frontmatter: Record<string, unknown>;
  /** The skill's files with their digests and sizes, or `'dynamic'` when the server lists none. */
  resources: SkillFile[] | 'dynamic';
  [key: string]: unknown;
}

/** One page of `skills/list`. */
export interface ListSkillsResult {
  /** The skills on this page. */
  skills: SkillEntry[];
  /** Pass it back as `cursor` to get the next page; absent on the last page. */
  nextCursor?: string;
  [key: string]: unknown;
}

/** A skill file whose size and digest matched its entry. */
export interface VerifiedSkillFile {
  /** The file's resource URI. */
  uri: string;
  /** Its media type, if the server gave one. */
  mimeType?: string;
  /** The content as text (UTF-8), also for a blob. */
  text: string;
  /** The content's bytes, as hashed. */
  bytes: Uint8Array;
}

/** A skill whose SKILL.md was verified: size, digest and every frontmatter field. */
export interface LoadedSkill {
  /** The skill's `skills/list` entry. */
  entry: SkillEntry;
  /** SKILL.md's frontmatter, parsed from YAML. */
  frontmatter: Record<string, unknown>;
  /** SKILL.md after its frontmatter block. */
  body: string;
  /** SKILL.md itself, verified. */
  file: VerifiedSkillFile;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

function refuse(
  uri: string,
  check: 'unlisted' | 'size' | 'digest' | 'frontmatter',
  problem: string,
  server: string,
  field?: string,
): SkillVerificationError {
  return new SkillVerificationError(
    uri,
    check,
    `skill file ${uri}: ${problem}; its content was not used (the server must serve the files its skills/list entry describes)`,
    { server, field },
  );
}

/**
 * The listed file `uri` of `entry`, or a SkillVerificationError when it is not listed (checked
 * before reading: an unlisted file has nothing to verify it against).
 */
export function listedSkillFile(entry: SkillEntry, uri: string, server: string): SkillFile {
  const file = Array.isArray(entry.resources) ? entry.resources.find((f) => f.uri === uri) : undefined;
  if (file === undefined)
    throw refuse(
      uri,
      'unlisted',
      `it is not in the resources of skill ${entry.uri}, so it has no digest to check`,
      server,
    );
  if (typeof file.digest !== 'string' || !DIGEST.test(file.digest))
    throw refuse(
      uri,
      'digest',
      `its entry's digest ${JSON.stringify(file.digest)} is not sha256:<64 lowercase hex>`,
      server,
    );
  if (!Number.isSafeInteger(file.size) || file.size < 0)
    throw refuse(uri, 'size', `its entry's size ${JSON.stringify(file.size)} is not a byte count`, server);
  return file;
}

/**
 * The content of `file.uri` from a `resources/read` result, checked against its listing: the byte length
 * first (a wrong size is a failure whether or not the digest is computed), then the sha256.
 */
export function verifySkillFile(
  file: SkillFile,
  result: ReadResourceResult,
  server: string,
): VerifiedSkillFile {
  const { uri } = file;
  const contents = Array.isArray(result?.contents) ? result.contents : [];
  const content = (contents.find((c) => c?.uri === uri) ??
    (contents.length === 1 ? contents[0] : undefined)) as
    | { text?: unknown; blob?: unknown; mimeType?: unknown }
    | undefined;
  let bytes: Buffer | undefined;
  if (typeof content?.text === 'string') bytes = Buffer.from(content.text, 'utf8');
  else if (typeof content?.blob === 'string') bytes = Buffer.from(content.blob, 'base64');
  if (bytes === undefined)
    throw refuse(uri, 'size', 'the server returned no text or blob content for it', server);
  if (bytes.length !== file.size)
    throw refuse(uri, 'size', `the server sent ${bytes.length} bytes, its entry lists ${file.size}`, server);
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  if (digest !== file.digest)
    throw refuse(
      uri,
      'digest',
      `the server sent content with digest ${digest}, its entry lists ${file.digest}`,
      server,
    );
  return {
    uri,
    ...(typeof content?.mimeType === 'string' ? { mimeType: content.mimeType } : {}),
    text: typeof content?.text === 'string' ? content.text : bytes.toString('utf8'),
    bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length),
  };
}

/** A value for a message: JSON, cut at 120 characters (a hostile server chooses the value). */
function shown(value: unknown): string {
  const json = JSON.stringify(value ?? null);
  return json.length > 120 ? `${json.slice(0, 120)}...` : json;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameJson(item, other[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]))
  );
}

/**
 * Parses the YAML frontmatter of a verified SKILL.md and compares it field by field with the
 * entry's. `yaml` is loaded here, on the first skill loaded, so hosts that never load one never
 * pay for it.
 */
export async function loadVerifiedSkill(
  entry: SkillEntry,
  file: VerifiedSkillFile,
  server: string,
): Promise<LoadedSkill> {
  const text = file.text.charCodeAt(0) === 0xfeff ? file.text.slice(1) : file.text;
  const match = FRONTMATTER.exec(text);
  if (!match)
    throw refuse(
      file.uri,
      'frontmatter',
      'it does not begin with a --- delimited YAML frontmatter block',
      server,
    );
  const { parse } = await import('yaml');
  let parsed: unknown;
  try {
    parsed = parse(match[1]!, { schema: 'core', maxAliasCount: 100 });
  } catch (error) {
    throw refuse(
      file.uri,
      'frontmatter',
      `its frontmatter is not valid YAML (${(error as Error).message.split('\n')[0]})`,
      server,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw refuse(file.uri, 'frontmatter', 'its frontmatter is not a YAML mapping', server);
  const frontmatter = parsed as Record<string, unknown>;
  const listed = entry.frontmatter ?? {};
  for (const field of new Set([...Object.keys(frontmatter), ...Object.keys(listed)])) {
    if (sameJson(frontmatter[field], listed[field])) continue;
    throw refuse(
      file.uri,
      'frontmatter',
      `frontmatter field ${shown(field)} is ${shown(frontmatter[field])} in the file but ${shown(listed[field])} in the entry`,
      server,
      field,
    );
  }
  return { entry, frontmatter, body: text.slice(match[0].length), file };
}

/** Reads a file listed in a skill's `resources`, verified against the entry (SkillVerificationError). */
export async function readSkillFile(
  readResource: (uri: string) => Promise<ReadResourceResult>,
  entry: SkillEntry,
  uri: string,
  server: string,
): Promise<VerifiedSkillFile> {
  const file = listedSkillFile(entry, uri, server);
  return verifySkillFile(file, await readResource(uri), server);
}
