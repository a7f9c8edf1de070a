import type {
  CallToolResult,
  Client,
  ContentBlock,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '../index.js';
import type { TextPolicy } from './sanitize.js';
import { type TableLayout, table } from './table.js';
import { describeParameters } from './tool-arguments.js';

/** One line of at most `max` characters, its control characters shown (or kept, under --raw). */
export function oneLine(policy: TextPolicy, value: unknown, max = 100): string {
  // A summary: line breaks and runs of white space read as one space, not as \x0a escapes.
  const text = policy.line(
    String(value ?? '')
      .replace(/\s+/g, ' ')
      .trim(),
  );
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function describeCapabilities(policy: TextPolicy, capabilities: ServerCapabilities | undefined): string {
  if (!capabilities) return '(none)';
  const parts = Object.entries(capabilities).map(([name, value]) => {
    const flags =
      value && typeof value === 'object'
        ? Object.keys(value).filter((flag) => (value as Record<string, unknown>)[flag])
        : [];
    return oneLine(policy, flags.length ? `${name} (${flags.join(', ')})` : name, 200);
  });
  return parts.length ? parts.join(', ') : '(none)';
}

/**
 * NAME, PARAMETERS (`name: type`, `*` when required) and DESCRIPTION (the title when it has none).
 * A name is never cut (it is typed back: `call <name>`), nor are the parameters; on a terminal
 * (`width`, its columns) the parameters and the description wrap to fit.
 */
export function toolsTable(policy: TextPolicy, tools: Tool[], width?: number): string {
  return table(
    ['NAME', 'PARAMETERS', 'DESCRIPTION'],
    tools.map((tool) => [
      oneLine(policy, tool.name, Number.POSITIVE_INFINITY),
      oneLine(policy, describeParameters(tool), Number.POSITIVE_INFINITY),
      oneLine(policy, tool.description ?? tool.title, 80),
    ]),
    { width, wrap: [1, 2] } satisfies TableLayout,
  );
}

export function resourcesTable(policy: TextPolicy, resources: Resource[]): string {
  return table(
    ['URI', 'NAME', 'MIME TYPE'],
    resources.map((resource) => [
      oneLine(policy, resource.uri, 60),
      oneLine(policy, resource.name, 30),
      oneLine(policy, resource.mimeType, 30),
    ]),
  );
}

export function templatesTable(policy: TextPolicy, templates: ResourceTemplate[]): string {
  return table(
    ['URI TEMPLATE', 'NAME'],
    templates.map((template) => [
      oneLine(policy, template.uriTemplate, 60),
      oneLine(policy, template.name, 40),
    ]),
  );
}

export function promptsTable(policy: TextPolicy, prompts: Prompt[]): string {
  return table(
    ['NAME', 'ARGUMENTS', 'DESCRIPTION'],
    prompts.map((prompt) => [
      oneLine(policy, prompt.name, 40),
      oneLine(
        policy,
        (prompt.arguments ?? []).map((arg) => (arg.required ? `${arg.name}*` : arg.name)).join(', '),
        40,
      ),
      oneLine(policy, prompt.description, 60),
    ]),
  );
}

function decodedBytes(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

/** Where a binary block was saved (`--output`), by the block. */
export type SavedFiles = Map<object, string>;

/** Text as text; images, audio and blobs as a one-line summary; links and resources by URI. */
function renderContent(policy: TextPolicy, block: ContentBlock, saved: SavedFiles): string {
  const where = saved.has(block) ? `, saved to ${saved.get(block)}` : '';
  switch (block.type) {
    case 'text':
      return policy.text(block.text);
    case 'image':
    case 'audio':
      return `[${block.type}: ${oneLine(policy, block.mimeType, 60)}, ${decodedBytes(block.data)} bytes${where}]`;
    case 'resource_link':
      return `[resource link: ${oneLine(policy, block.uri, 200)}${block.name ? ` (${oneLine(policy, block.name, 60)})` : ''}]`;
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource) return policy.text(resource.text);
      const savedBlob = saved.has(resource) ? `, saved to ${saved.get(resource)}` : '';
      return `[resource ${oneLine(policy, resource.uri, 200)}: ${oneLine(policy, resource.mimeType ?? 'binary', 60)}, ${decodedBytes(resource.blob)} bytes${savedBlob}]`;
    }
    default:
      return `[${oneLine(policy, (block as { type?: unknown }).type, 40)} content]`;
  }
}

/**
 * The content; structured content only when there is no content (or with --structured): a
 * server that sends both sends the same result twice.
 */
export function renderToolResult(
  policy: TextPolicy,
  result: CallToolResult,
  options: { structured: boolean; saved: SavedFiles },
): string {
  const content = result.content ?? [];
  const parts = content.map((block) => renderContent(policy, block, options.saved));
  if (result.structuredContent !== undefined && (options.structured || content.length === 0)) {
    parts.push(policy.text(JSON.stringify(result.structuredContent, null, 2)));
  }
  return parts.join('\n');
}

export function renderResource(policy: TextPolicy, result: ReadResourceResult, saved: SavedFiles): string {
  return (result.contents ?? [])
    .map((contents) =>
      'text' in contents
        ? policy.text(contents.text)
        : `[${oneLine(policy, contents.uri, 200)}: ${oneLine(policy, contents.mimeType ?? 'binary', 60)}, ${decodedBytes(contents.blob)} bytes${saved.has(contents) ? `, saved to ${saved.get(contents)}` : ''}]`,
    )
    .join('\n');
}

export function renderPrompt(policy: TextPolicy, result: GetPromptResult): string {
  const lines = result.description ? [policy.text(result.description), ''] : [];
  for (const message of result.messages ?? [])
    lines.push(`${oneLine(policy, message.role, 20)}: ${renderContent(policy, message.content, new Map())}`);
  return lines.join('\n');
}

/** The header of `inspect`: who the server is and what it offers. */
export function renderServer(policy: TextPolicy, client: Client): string {
  const info = client.serverInfo;
  const lines = [
    `Server        ${info ? `${oneLine(policy, info.name, 60)} ${oneLine(policy, info.version, 30)}` : '(unnamed)'}`,
    `Era           ${client.era} (protocol ${oneLine(policy, client.protocolVersion, 30)})`,
    `Capabilities  ${describeCapabilities(policy, client.serverCapabilities)}`,
  ];
  if (client.instructions) lines.push(`Instructions  ${oneLine(policy, client.instructions, 400)}`);
  return lines.join('\n');
}
