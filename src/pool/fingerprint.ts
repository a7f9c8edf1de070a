/**
 * A tool's canonical fingerprint, for pinning on first use: the fields a model reads and the host
 * trusts (name, title, description, input and output schemas, annotations) as canonical JSON (keys
 * sorted at every depth, no whitespace), hashed with SHA-256. The same tool gives the same
 * fingerprint whatever the order of its keys; any change to those fields changes it.
 */
import { createHash } from 'node:crypto';

/** The fields a fingerprint covers. */
export const FINGERPRINT_FIELDS = [
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
] as const;

/** `value` as JSON with object keys sorted at every depth; undefined members left out as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    return text === undefined ? 'null' : text;
  }
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .filter((key) => record[key] !== undefined && typeof record[key] !== 'function')
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${members.join(',')}}`;
}

/** The canonical JSON of the fingerprinted fields of `tool` (absent fields left out). */
export function canonicalTool(tool: Record<string, unknown>): string {
  const picked: Record<string, unknown> = {};
  for (const field of FINGERPRINT_FIELDS) if (tool[field] !== undefined) picked[field] = tool[field];
  return canonicalJson(picked);
}

/** `sha256:<64 hex digits>` of canonicalTool(tool). */
export function toolFingerprint(tool: { name: string } & Record<string, unknown>): string {
  return `sha256:${createHash('sha256').update(canonicalTool(tool)).digest('hex')}`;
}
