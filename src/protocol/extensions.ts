/** The protocol extensions (SEP-2133) the client uses, by their ids. */

/** The SEP-2640 extension id, under `capabilities.extensions` of a server that serves skills. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

/** The SEP-2663 tasks extension id (modern era): a `tools/call` may be answered with a task. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * The extensions the client declares under `extensions` of its capabilities. Only the modern
 * era's schema has that field (2025-11-25's ClientCapabilities has none), so only modern requests
 * carry it. Neither extension defines a client setting: an empty object declares support.
 */
export const CLIENT_EXTENSIONS: Readonly<Record<string, Record<string, never>>> = Object.freeze({
  [SKILLS_EXTENSION]: Object.freeze({}),
  [TASKS_EXTENSION]: Object.freeze({}),
});
