/**
 * A CallToolResult as the parts a model is shown: text as text; images and audio as media where the
 * provider takes them in a tool result, otherwise a short description; resource links and embedded
 * resources as text naming their URI. Content whose `annotations.audience` leaves out the assistant
 * is for the user only and is not shown to the model.
 */
import type { CallToolResult, ContentBlock } from '../index.js';
import type { MediaSupport, RenderedPart, RenderedResult } from './types.js';

/** What the model reads when every block of a result was for the user only. */
export const USER_ONLY = '[the result was shown to the user only]';

/** The parts of `result` a model with `media` support is shown. */
export function renderResult(result: CallToolResult, media: MediaSupport): RenderedResult {
  const content = Array.isArray(result.content) ? result.content : [];
  const parts = content.filter(forAssistant).map((block) => renderBlock(block, media));
  if (parts.length === 0 && result.structuredContent !== undefined && content.length === 0) {
    parts.push({ type: 'text', text: JSON.stringify(result.structuredContent) });
  } else if (parts.length === 0 && content.length > 0) {
    parts.push({ type: 'text', text: USER_ONLY });
  }
  return { isError: result.isError === true, parts };
}

/** Whether a block may be shown to the model: no audience, or an audience that names the assistant. */
export function forAssistant(block: { annotations?: { audience?: unknown } }): boolean {
  const audience = block.annotations?.audience;
  return !Array.isArray(audience) || audience.includes('assistant');
}

function renderBlock(block: ContentBlock, media: MediaSupport): RenderedPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
    case 'audio':
      if (media[block.type](block.mimeType))
        return { type: block.type, mimeType: block.mimeType, data: block.data };
      return {
        type: 'text',
        text: describeMedia(block.type, block.mimeType, block.data, 'this model takes none in a tool result'),
      };
    case 'resource_link': {
      const details = [block.mimeType, block.size !== undefined ? `${block.size} bytes` : undefined].filter(
        Boolean,
      );
      const title = block.title && block.title !== block.name ? ` (${block.title})` : '';
      const about = block.description ? `: ${block.description}` : '';
      const extra = details.length > 0 ? ` [${details.join(', ')}]` : '';
      return { type: 'text', text: `[resource link] ${block.name}${title} <${block.uri}>${extra}${about}` };
    }
    case 'resource': {
      const resource = block.resource;
      const kind = resource.mimeType ? ` (${resource.mimeType})` : '';
      if ('text' in resource && typeof resource.text === 'string') {
        return { type: 'text', text: `[resource <${resource.uri}>${kind}]\n${resource.text}` };
      }
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      const mimeType = resource.mimeType ?? 'application/octet-stream';
      if (mimeType.startsWith('image/') && media.image(mimeType))
        return { type: 'image', mimeType, data: blob };
      return {
        type: 'text',
        text: `[resource <${resource.uri}>${kind}: ${base64Bytes(blob)} bytes of binary data, not shown]`,
      };
    }
    default: {
      const unknown = block as { type?: unknown };
      return { type: 'text', text: `[content of type ${JSON.stringify(unknown.type)} not shown]` };
    }
  }
}

/** A one-line description of media that is not sent: its kind, type, size and why. */
export function describeMedia(kind: string, mimeType: string, data: string, why: string): string {
  return `[${kind} ${mimeType}, ${base64Bytes(data)} bytes, not shown: ${why}]`;
}

/** Decoded size of base64 text, in bytes. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
