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

/** One line, without control characters (a server's strings must not drive the terminal). */
export function oneLine(value: unknown, max = 100): string {
  const text = String(value ?? '')
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A plain text table: a header row, then rows, columns padded to their widest cell. */
export function table(headers: string[], rows: string[][]): string {
  if (rows.length === 0) return '  (none)';
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const format = (cells: string[]) =>
    `  ${cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')}`.trimEnd();
  return [format(headers), ...rows.map(format)].join('\n');
}

export function describeCapabilities(capabilities: ServerCapabilities | undefined): string {
  if (!capabilities) return '(none)';
  const parts = Object.entries(capabilities).map(([name, value]) => {
    const flags =
      value && typeof value === 'object'
        ? Object.keys(value).filter((flag) => (value as Record<string, unknown>)[flag])
        : [];
    return flags.length ? `${name} (${flags.join(', ')})` : name;
  });
  return parts.length ? parts.join(', ') : '(none)';
}

export function toolsTable(tools: Tool[]): string {
  return table(
    ['NAME', 'DESCRIPTION'],
    tools.map((tool) => [oneLine(tool.name, 40), oneLine(tool.title ?? tool.description, 80)]),
  );
}

export function resourcesTable(resources: Resource[]): string {
  return table(
    ['URI', 'NAME', 'MIME TYPE'],
    resources.map((resource) => [
      oneLine(resource.uri, 60),
      oneLine(resource.name, 30),
      oneLine(resource.mimeType, 30),
    ]),
  );
}

export function templatesTable(templates: ResourceTemplate[]): string {
  return table(
    ['URI TEMPLATE', 'NAME'],
    templates.map((template) => [oneLine(template.uriTemplate, 60), oneLine(template.name, 40)]),
  );
}

export function promptsTable(prompts: Prompt[]): string {
  return table(
    ['NAME', 'ARGUMENTS', 'DESCRIPTION'],
    prompts.map((prompt) => [
      oneLine(prompt.name, 40),
      oneLine(
        (prompt.arguments ?? []).map((arg) => (arg.required ? `${arg.name}*` : arg.name)).join(', '),
        40,
      ),
      oneLine(prompt.description, 60),
    ]),
  );
}

/** Text as text; images, audio and blobs as a one-line summary; links and resources by URI. */
export function renderContent(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes]`;
    case 'resource_link':
      return `[resource link: ${block.uri}${block.name ? ` (${oneLine(block.name, 60)})` : ''}]`;
    case 'resource':
      return 'text' in block.resource
        ? block.resource.text
        : `[resource ${block.resource.uri}: ${block.resource.mimeType ?? 'binary'}, ${Math.floor((block.resource.blob.length * 3) / 4)} bytes]`;
    default:
      return `[${oneLine((block as { type?: unknown }).type, 40)} content]`;
  }
}

export function renderToolResult(result: CallToolResult): string {
  const parts = (result.content ?? []).map(renderContent);
  if (result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  return parts.join('\n');
}

export function renderResource(result: ReadResourceResult): string {
  return (result.contents ?? [])
    .map((contents) =>
      'text' in contents
        ? contents.text
        : `[${contents.uri}: ${contents.mimeType ?? 'binary'}, ${Math.floor((contents.blob.length * 3) / 4)} bytes]`,
    )
    .join('\n');
}

export function renderPrompt(result: GetPromptResult): string {
  const lines = result.description ? [result.description, ''] : [];
  for (const message of result.messages ?? [])
    lines.push(`${message.role}: ${renderContent(message.content)}`);
  return lines.join('\n');
}

/** The header of `inspect`: who the server is and what it offers. */
export function renderServer(client: Client): string {
  const info = client.serverInfo;
  const lines = [
    `Server        ${info ? `${oneLine(info.name, 60)} ${oneLine(info.version, 30)}` : '(unnamed)'}`,
    `Era           ${client.era} (protocol ${client.protocolVersion})`,
    `Capabilities  ${describeCapabilities(client.serverCapabilities)}`,
  ];
  if (client.instructions) lines.push(`Instructions  ${oneLine(client.instructions, 400)}`);
  return lines.join('\n');
}
