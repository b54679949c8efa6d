// `engines.node` in the root package.json must name the Node versions the course really runs on:
// every installed package must accept each of them, and so must the Node APIs our code calls.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/labs.ts';

/** Node APIs our own code uses that are newer than Node 20.0 (grep the labs before lowering engines). */
const API_MINIMUMS = [
  { api: 'AbortSignal.any (lab-kit checks, labs 05 and 08-10)', since: '20.3.0' },
  { api: "tsx's register() from tsx/esm/api (lab 04's worker threads; needs module.register)", since: '20.6.0' },
  { api: 'import.meta.dirname (lab 05 drill)', since: '20.11.0' },
];

// ---- just enough of npm's version ranges to read engines fields --------------------------

type Version = [number, number, number];

function parseVersion(text: string): { version: Version; parts: number } {
  const parts = text
    .replace(/^v/, '')
    .split('.')
    .filter((p) => p !== '' && p !== 'x' && p !== '*');
  const [major = 0, minor = 0, patch = 0] = parts.map(Number);
  return { version: [major, minor, patch], parts: parts.length };
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/** One comparator: >=1.2.3, <2, ^20.19.0, ~1.2, 1.x, 18.* */
function comparatorAllows(comparator: string, v: Version): boolean {
  const match = /^(>=|<=|>|<|=|\^|~)?(.*)$/.exec(comparator);
  const op = match?.[1] ?? '';
  const { version: bound, parts } = parseVersion(match?.[2] ?? '');
  const cmp = compare(v, bound);
  if (op === '>=') return cmp >= 0;
  if (op === '>') return cmp > 0;
  if (op === '<=') return cmp <= 0;
  if (op === '<') return cmp < 0;
  // ^1.2.3 keeps the major; ~1.2.3, or a partial version (1.2, 1.x), keeps what it names.
  const keep = op === '^' ? 1 : op === '~' ? Math.min(Math.max(parts, 1), 2) : parts === 3 ? 3 : parts;
  return cmp >= 0 && v.slice(0, keep).every((n, i) => n === bound[i]);
}

function rangeAllows(range: string, version: string): boolean {
  const v = parseVersion(version).version;
  return range.split('||').some((clause) =>
    clause
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean)
      .every((comparator) => comparatorAllows(comparator, v)),
  );
}

const versionsNamedIn = (range: string) =>
  [...range.matchAll(/\d+(?:\.\d+){0,2}/g)].map((m) => parseVersion(m[0]).version.join('.'));

// ---- what is installed ---------------------------------------------------------------------

function installedEngines(): Array<{ pkg: string; range: string }> {
  const store = join(REPO_ROOT, 'node_modules', '.pnpm');
  const found: Array<{ pkg: string; range: string }> = [];
  for (const entry of readdirSync(store)) {
    // "vitest@4.1.12_<peers>" or "@rolldown+binding-linux-x64-gnu@1.2.19"
    const name = entry.slice(0, entry.indexOf('@', 1)).replace('+', '/');
    const manifest = join(store, entry, 'node_modules', name, 'package.json');
    if (!name || !existsSync(manifest)) continue;
    const json = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string; engines?: { node?: string } };
    if (json.engines?.node) found.push({ pkg: `${name}@${json.version}`, range: json.engines.node });
  }
  return found;
}

const rootManifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  engines?: { node?: string };
};
const ours = rootManifest.engines?.node ?? '*';

/** Versions worth trying: every bound any range names, and the first and a late release of each major. */
function probeVersions(ranges: string[]): string[] {
  const majors = Array.from({ length: 12 }, (_, i) => i + 16).flatMap((m) => [`${m}.0.0`, `${m}.99.0`]);
  return [...new Set([...ranges.flatMap(versionsNamedIn), ...majors])];
}

describe('the Node version in engines', () => {
  it('When the range reader is asked, Then it reads npm ranges the way npm does', () => {
    expect(rangeAllows('^20.19.0 || >=22.12.0', '20.19.0')).toBe(true);
    expect(rangeAllows('^20.19.0 || >=22.12.0', '20.18.3')).toBe(false);
    expect(rangeAllows('^20.19.0 || >=22.12.0', '21.7.0')).toBe(false);
    expect(rangeAllows('^20.19.0 || >=22.12.0', '22.11.0')).toBe(false);
    expect(rangeAllows('^20.19.0 || >=22.12.0', '24.1.0')).toBe(true);
    expect(rangeAllows('>= 0.10', '20.0.0')).toBe(true);
    expect(rangeAllows('^10 || ^12 || ^13.7 || ^14 || >=15.0.1', '13.6.0')).toBe(false);
    expect(rangeAllows('>=18.*', '18.0.0')).toBe(true);
    expect(rangeAllows('~1.2.3', '1.3.0')).toBe(false);
  });

  it('When engines allows a Node version, Then every installed package accepts it too [test:engines-match-dependencies]', () => {
    const engines = installedEngines();
    expect(engines.length).toBeGreaterThan(10);
    const refusals = probeVersions([ours, ...engines.map((e) => e.range)])
      .filter((version) => rangeAllows(ours, version))
      .flatMap((version) =>
        engines.filter((e) => !rangeAllows(e.range, version)).map((e) => `Node ${version}: ${e.pkg} needs ${e.range}`),
      );
    expect(refusals).toEqual([]);
  });

  it('When engines allows a Node version, Then it has every newer API our code calls [test:engines-match-apis]', () => {
    const tooOld = probeVersions([ours, ...API_MINIMUMS.map((a) => a.since)])
      .filter((version) => rangeAllows(ours, version))
      .flatMap((version) =>
        API_MINIMUMS.filter((a) => !rangeAllows(`>=${a.since}`, version)).map((a) => `Node ${version} lacks ${a.api}`),
      );
    expect(tooOld).toEqual([]);
  });

  it('When the README and CI name the Node version, Then they name the oldest versions engines allows', () => {
    // The lowest version of each clause, as people write it: 20.19, 22.12, 24.
    const asWritten = (version: string) => {
      const [major, minor] = version.split('.');
      return minor === '0' ? `${major}` : `${major}.${minor}`;
    };
    const lowest = ours.split('||').map((clause) => asWritten(versionsNamedIn(clause)[0] ?? ''));
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const ci = readFileSync(join(REPO_ROOT, '.ci', 'run'), 'utf8');
    for (const version of lowest) {
      const named = new RegExp(`(?<![\\d.])${version.replace('.', '\\.')}(?![\\d])`);
      expect(readme, `README.md names Node ${version}`).toMatch(named);
      expect(ci, `.ci/run checks Node ${version}`).toMatch(named);
    }
  });
});
