// `node --import ./record-imports.mjs`: every module URL the process resolves is appended to the
// file IMPORTS_FILE names (see resolve-hook.mjs).
import { register } from 'node:module';

register('./resolve-hook.mjs', import.meta.url, { data: { file: process.env.IMPORTS_FILE } });
