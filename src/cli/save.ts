import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SavedFiles } from './render.js';

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'application/pdf': 'pdf',
  'application/json': 'json',
};

interface Binary {
  owner: object;
  data: string;
  mimeType: string | undefined;
  kind: string;
}

/** Images, audio and blobs among content blocks or resource contents, however they are nested. */
function binaries(items: readonly unknown[]): Binary[] {
  const found: Binary[] = [];
  for (const item of items) {
    const block = item as Record<string, unknown>;
    if ((block.type === 'image' || block.type === 'audio') && typeof block.data === 'string') {
      found.push({ owner: block, data: block.data, mimeType: block.mimeType as string, kind: block.type });
    } else if (block.type === 'resource' && typeof block.resource === 'object' && block.resource !== null) {
      found.push(...binaries([block.resource]));
    } else if (typeof block.blob === 'string') {
      found.push({
        owner: block,
        data: block.blob,
        mimeType: block.mimeType as string | undefined,
        kind: 'blob',
      });
    }
  }
  return found;
}

/**
 * `--output <dir>`: writes each image, audio clip and blob to `<dir>/<n>-<kind>.<ext>`. The names
 * are ours: nothing the server sends (a URI, a name) can choose where a file goes.
 */
export function saveBinaries(directory: string, items: readonly unknown[]): SavedFiles {
  const saved: SavedFiles = new Map();
  const found = binaries(items);
  if (found.length === 0) return saved;
  mkdirSync(directory, { recursive: true });
  found.forEach((binary, index) => {
    const extension = EXTENSIONS[binary.mimeType ?? ''] ?? 'bin';
    const file = path.join(directory, `${index + 1}-${binary.kind}.${extension}`);
    writeFileSync(file, Buffer.from(binary.data, 'base64'));
    saved.set(binary.owner, file);
  });
  return saved;
}
