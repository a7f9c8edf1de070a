import { register } from 'node:module';

register('./alias-hooks.mjs', import.meta.url);
