// The bench report (bench/report/): a small saved run renders as tables, well-formed SVG charts
// and a BENCHMARKS.md region that keeps the groups the run did not measure.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { barsOf, groupChart } from '../../bench/report/chart.js';
import { BEGIN, END, spliceReport } from '../../bench/report/document.js';
import { groupOfScenario } from '../../bench/report/groups.js';
import { pickGroups, readRun, type SavedRun } from '../../bench/report/model.js';
import { groupSection, tableOf } from '../../bench/report/table.js';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/bench-result.json');
const run = readRun(FIXTURE);
const picked = pickGroups([run]);
const throughput = picked.get('throughput')!;
const connect = picked.get('connect')!;

/** The cells of a markdown table line. */
const cells = (line: string) =>
  line
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());

/**
 * Throws unless `svg` is well-formed XML as far as this writer produces it: every tag closed in
 * order, every attribute quoted, no bare `<` or `&` in text. Returns the elements' names in order.
 */
function parseSvg(svg: string): { name: string; attributes: Record<string, string>; text: string }[] {
  const elements: { name: string; attributes: Record<string, string>; text: string }[] = [];
  const open: { name: string; index: number }[] = [];
  const tag = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  for (let match = tag.exec(svg); match; match = tag.exec(svg)) {
    const between = svg.slice(last, match.index);
    assert.doesNotMatch(
      between,
      /<|&(?!(amp|lt|gt|quot|apos);)/,
      `stray markup before offset ${match.index}`,
    );
    if (open.length > 0) elements[open.at(-1)!.index]!.text += between;
    last = tag.lastIndex;
    const [, closing, name, attributeText, selfClosing] = match;
    if (closing) {
      assert.equal(open.pop()?.name, name, `</${name}> closes another element`);
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const [, key, value] of attributeText!.matchAll(/([\w:-]+)="([^"]*)"/g)) attributes[key!] = value!;
    elements.push({ name: name!, attributes, text: '' });
    if (!selfClosing) open.push({ name: name!, index: elements.length - 1 });
  }
  assert.equal(open.length, 0, `unclosed: ${open.map((o) => o.name).join(', ')}`);
  assert.equal(svg.slice(last).trim(), '', 'text after the root element');
  const decode = (text: string) =>
    text
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&');
  return elements.map((element) => ({ ...element, text: decode(element.text) }));
}

describe('bench report', () => {
  it('gives each row its group, inferring it for results saved without one', () => {
    assert.deepEqual([...picked.keys()], ['throughput', 'connect']);
    assert.equal(groupOfScenario('sequential-http-modern'), 'http');
    assert.equal(groupOfScenario('connect-http-legacy'), 'http-connect');
    assert.equal(groupOfScenario('bytes-8m-modern'), 'modern');
    assert.equal(groupOfScenario('heap-http-legacy'), 'http-memory');
    assert.equal(groupOfScenario('pool-ready'), 'pool');
    assert.equal(groupOfScenario('bytes-1m'), 'throughput');
  });

  it('renders one table row per scenario: the medians, the ratios and the spread', () => {
    const lines = tableOf(throughput.rows);
    assert.deepEqual(cells(lines[0]!), [
      'scenario',
      'unit',
      'conduit-mcp',
      'official 1.x',
      'official 2.x',
      'raw floor',
      'ours / raw',
      'ours / best official',
      'spread',
    ]);
    assert.equal(lines.length, 2 + 2);
    assert.deepEqual(cells(lines[2]!), [
      '5,000 sequential tools/call echo',
      'calls/s',
      '9,500',
      '6,100',
      '5,200',
      '10,500',
      '0.90x',
      '1.56x',
      '±5%',
    ]);
    assert.equal(cells(lines[3]!)[8], '±2%, up to ±4%', 'the raw floor spread wider than ours');
  });

  it('renders a client missing from a scenario as n/a, and one with no valid sample as failed', () => {
    const row = cells(tableOf(throughput.rows)[3]!);
    assert.equal(row[3], 'failed');
    assert.equal(row[4], 'n/a', 'official 2.x has no cell in this scenario');
    assert.equal(row[7], 'n/a', 'no best official: no ratio');
    const silent = cells(tableOf(connect.rows)[2]!);
    assert.deepEqual(silent.slice(2, 7), ['3,016', '> 10,006', '75.0', 'n/a', '0.30x']);
  });

  it('names the run a group comes from and lists its missed targets', () => {
    const section = groupSection(throughput).join('\n');
    assert.match(section, /Run of 2026-12-06 10:00 UTC \(`bench-result\.json`\), `--runs 3`; Test CPU x2/);
    assert.match(section, /load 0\.50 at the start/);
    assert.match(section, /!\[[^\]]+\]\(bench\/charts\/throughput\.svg\)/);
    assert.match(
      section,
      /Targets missed in this run: 5,000 sequential tools\/call echo \(>= 0\.95x raw\)\./,
    );
  });

  it('draws a well-formed SVG: a white background, a bar per client with a figure, labelled', () => {
    const svg = groupChart(throughput);
    const elements = parseSvg(svg);
    assert.equal(elements[0]!.name, 'svg');
    assert.equal(elements[0]!.attributes.xmlns, 'http://www.w3.org/2000/svg');
    assert.ok(elements.some((e) => e.name === 'rect' && e.attributes.fill === '#ffffff'));
    const bars = elements.filter((e) => e.name === 'rect' && e.attributes.class === 'bar');
    // sequential: 4 clients; in flight: conduit-mcp and raw (official 1.x failed, 2.x absent).
    assert.deepEqual(
      bars.map((b) => b.attributes['data-column']),
      ['conduit', 'sdk1', 'sdk2', 'raw', 'conduit', 'raw'],
    );
    const texts = elements.filter((e) => e.name === 'text').map((e) => e.text);
    assert.ok(texts.includes('5,000 sequential tools/call echo, calls/s'));
    assert.ok(texts.includes('0.90x (9,500 calls/s)'));
    assert.ok(texts.includes('1.00x (10,500 calls/s)'));
    assert.equal(texts.filter((t) => t === 'n/a').length, 1, 'the failed official 1.x');
    assert.ok(texts.some((t) => /longer is better/.test(t)));
    // The raw floor's bar is the 1.0 mark; longer bars are better.
    const width = (i: number) => Number(bars[i]!.attributes.width);
    assert.ok(width(0) < width(3) && width(4) > width(5));
  });

  it('inverts times so that longer is better, and marks a capped time as an upper bound', () => {
    const { bars, rawBased } = barsOf(connect.rows[0]!, ['conduit', 'sdk2auto', 'raw']);
    assert.equal(rawBased, true);
    assert.ok(Math.abs(bars[0]!.ratio - 75 / 3016) < 1e-9);
    assert.equal(bars[1]!.upperBound, true);
    const texts = parseSvg(groupChart(connect))
      .filter((e) => e.name === 'text')
      .map((e) => e.text);
    assert.ok(texts.includes('< 0.0075x (> 10,006 ms)'), texts.join(' | '));
  });

  it('replaces the measured groups between the markers and keeps the others', () => {
    const before = [
      '# Benchmarks',
      BEGIN,
      '<!-- bench:group pool -->',
      'pool figures of an older run',
      '<!-- bench:group-end pool -->',
      '<!-- bench:group throughput -->',
      'stale throughput',
      '<!-- bench:group-end throughput -->',
      END,
      'after',
    ].join('\n');
    const after = spliceReport(before, picked);
    assert.match(after, /^# Benchmarks\n<!-- bench:begin -->/);
    assert.match(after, /<!-- bench:end -->\nafter$/);
    assert.match(after, /pool figures of an older run/);
    assert.doesNotMatch(after, /stale throughput/);
    assert.match(after, /\| 5,000 sequential tools\/call echo /);
    assert.match(after, /Not yet measured in this format: run `npm run bench -- --only close`\./);
    assert.throws(() => spliceReport('# no markers', picked), /bench:begin/);
  });

  it('takes each group from the newest full run, before any --quick one', () => {
    const older: SavedRun = { ...run, date: '2026-12-01T00:00:00.000Z' };
    const quick: SavedRun = {
      ...run,
      date: '2026-12-09T00:00:00.000Z',
      settings: { ...run.settings, quick: true },
    };
    const chosen = pickGroups([older, quick, run]);
    assert.equal(chosen.get('throughput')!.run.date, run.date);
    assert.equal(pickGroups([older, quick]).get('connect')!.run.date, older.date);
    assert.equal(pickGroups([quick]).get('connect')!.run.settings.quick, true);
  });
});
