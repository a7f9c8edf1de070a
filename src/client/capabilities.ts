import { SKILLS_EXTENSION } from '../protocol/extensions.js';
import type { ServerCapabilities } from '../protocol/types.js';

/** The server capability each method needs (methods absent here need none). */
const REQUIRED_CAPABILITY: Record<string, keyof ServerCapabilities> = {
  'tools/list': 'tools',
  'tools/call': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resources',
  'resources/read': 'resources',
  'resources/subscribe': 'resources',
  'resources/unsubscribe': 'resources',
  'prompts/list': 'prompts',
  'prompts/get': 'prompts',
  'completion/complete': 'completions',
  'logging/setLevel': 'logging',
};

/**
 * Why the server cannot serve `method`, judging by its declared capabilities, or undefined if it
 * can. Lets a call fail at once instead of costing a round trip for a sure -32601.
 */
export function missingCapability(method: string, capabilities: ServerCapabilities): string | undefined {
  const needed = REQUIRED_CAPABILITY[method];
  if (needed && !capabilities[needed])
    return `the server does not declare the ${needed} capability needed by ${method}`;
  if ((method === 'skills/list' || method === 'skills/get') && !capabilities.extensions?.[SKILLS_EXTENSION])
    return `the server does not declare the ${SKILLS_EXTENSION} extension needed by ${method}`;
  if (method === 'resources/subscribe' || method === 'resources/unsubscribe') {
    if (!capabilities.resources?.subscribe)
      return `the server does not declare resources.subscribe, needed by ${method}`;
  }
  return undefined;
}
