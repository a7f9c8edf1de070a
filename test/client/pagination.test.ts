// Pagination as a unit: collectPages over plain functions, then the Client's list methods over an
// in-memory transport (every page walked, or exactly one when a cursor is given).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '../../src/client/client.js';
import { collectPages, MAX_PAGES } from '../../src/client/pagination.js';
import { ProtocolError } from '../../src/errors.js';
import { memoryServers } from '../helpers/memory-server.js';

/** Pages keyed by the cursor that fetches them (`''` is a cursor too; undefined is the first). */
function pages(book: Record<string, Record<string, unknown>>, first: Record<string, unknown>) {
  const asked: (string | undefined)[] = [];
  const fetchPage = async (cursor: string | undefined) => {
    asked.push(cursor);
    if (cursor === undefined) return first;
    const page = book[cursor];
    if (!page) throw new Error(`no page for cursor ${cursor}`);
    return page;
  };
  return { fetchPage, asked };
}

describe('collectPages', () => {
  test('merges the items of every page in order and keeps the last page’s other fields', async () => {
    const { fetchPage, asked } = pages(
      { b: { tools: [3], nextCursor: 'c' }, c: { tools: [4, 5], extra: 'last' } },
      { tools: [1, 2], nextCursor: 'b', extra: 'first' },
    );
    assert.deepEqual(await collectPages(fetchPage, 'tools', 'srv'), {
      tools: [1, 2, 3, 4, 5],
      extra: 'last',
    });
    assert.deepEqual(asked, [undefined, 'b', 'c']);
  });

  test('an empty string is a cursor, not the end; null or a missing nextCursor ends', async () => {
    const { fetchPage, asked } = pages(
      { '': { tools: [2], nextCursor: null } },
      { tools: [1], nextCursor: '' },
    );
    assert.deepEqual(await collectPages(fetchPage, 'tools', 'srv'), { tools: [1, 2] });
    assert.deepEqual(asked, [undefined, '']);
  });

  test('a page without the key adds nothing; a single page is returned without nextCursor', async () => {
    const { fetchPage } = pages({ n: { nextCursor: undefined } }, { nextCursor: 'n' });
    assert.deepEqual(await collectPages(fetchPage, 'prompts', 'srv'), { prompts: [] });
  });

  test('a repeated cursor is a ProtocolError naming it, not an endless loop', async () => {
    const { fetchPage, asked } = pages(
      { a: { tools: [2], nextCursor: 'b' }, b: { tools: [3], nextCursor: 'a' } },
      { tools: [1], nextCursor: 'a' },
    );
    await assert.rejects(
      collectPages(fetchPage, 'tools', 'srv'),
      (error) =>
        error instanceof ProtocolError &&
        error.message === 'srv: the server repeated the cursor "a" while listing tools',
    );
    assert.deepEqual(asked, [undefined, 'a', 'b']);
  });

  test('a nextCursor that is not a string is a ProtocolError', async () => {
    const { fetchPage } = pages({}, { tools: [], nextCursor: 7 });
    await assert.rejects(collectPages(fetchPage, 'tools', 'srv'), {
      name: 'ProtocolError',
      message: 'srv: the server returned a nextCursor that is not a string',
    });
  });

  test('a list that never ends stops at maxPages', async () => {
    let calls = 0;
    const endless = async () => ({ tools: [calls], nextCursor: `c${calls++}` });
    await assert.rejects(collectPages(endless, 'tools', 'srv', 5), {
      name: 'ProtocolError',
      message: "srv: the server's tools list did not end after 5 pages",
    });
    assert.equal(calls, 5);
    assert.equal(MAX_PAGES, 1000);
  });
});

/** A legacy memory server whose tools come in pages of two, cursors `p1`, `p2`. */
function pagedServer() {
  const tools = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name, inputSchema: { type: 'object' } }));
  return memoryServers({
    era: 'legacy',
    capabilities: { tools: {}, prompts: {}, resources: {} },
    handlers: {
      'tools/list': (params) => {
        const start = params.cursor === undefined ? 0 : Number(String(params.cursor).slice(1)) * 2;
        const next = start + 2 < tools.length ? { nextCursor: `p${start / 2 + 1}` } : {};
        return { tools: tools.slice(start, start + 2), ...next };
      },
      'prompts/list': () => ({ prompts: [{ name: 'p' }], nextCursor: 'same' }),
    },
  });
}

describe('the Client walks pages', () => {
  test('listTools() walks every page; listTools({ cursor }) returns exactly that page', async () => {
    const { spec, servers } = pagedServer();
    await using client = new Client({ name: 'pages', transport: spec });
    await client.connect();
    const all = await client.listTools();
    assert.deepEqual(
      all.tools.map((tool) => tool.name),
      ['a', 'b', 'c', 'd', 'e'],
    );
    assert.equal('nextCursor' in all, false);
    const cursors = servers[0]!.requests('tools/list').map((request) => request.params?.cursor);
    assert.deepEqual(cursors, [undefined, 'p1', 'p2']);

    const one = await client.listTools({ cursor: 'p1' });
    assert.deepEqual(one, {
      tools: [
        { name: 'c', inputSchema: { type: 'object' } },
        { name: 'd', inputSchema: { type: 'object' } },
      ],
      nextCursor: 'p2',
    });
    assert.equal(servers[0]!.requests('tools/list').length, 4);
  });

  test('a server that repeats its cursor fails the list with a ProtocolError', async () => {
    const { spec, servers } = pagedServer();
    await using client = new Client({ name: 'pages', transport: spec });
    await client.connect();
    await assert.rejects(client.listPrompts(), {
      name: 'ProtocolError',
      message: 'pages: the server repeated the cursor "same" while listing prompts',
    });
    assert.equal(servers[0]!.requests('prompts/list').length, 2);
  });
});
