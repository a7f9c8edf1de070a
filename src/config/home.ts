import { homedir } from 'node:os';
import path from 'node:path';

/** `~/x` is the home folder's `x`. */
export function expandHome(file: string): string {
  return file === '~' || file.startsWith('~/') ? path.join(homedir(), file.slice(1)) : file;
}
