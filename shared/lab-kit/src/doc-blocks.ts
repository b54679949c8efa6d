// Generated blocks inside a hand-written Markdown page: a program rewrites what lies between a
// begin and an end marker and nothing else, so a person edits the prose around them in the
// Markdown file itself (`pnpm lab coverage --write` writes a lesson's coverage table this way,
// `pnpm bench` the benchmark page's tables and charts).

/**
 * The doc with the text between `begin` and `end` replaced by `body` (the markers stay, each on
 * its own line); undefined when the doc lacks either marker or has them out of order.
 */
export function replaceBetween(doc: string, begin: string, end: string, body: string): string | undefined {
  const from = doc.indexOf(begin);
  const to = from === -1 ? -1 : doc.indexOf(end, from + begin.length);
  if (from === -1 || to === -1) return undefined;
  return `${doc.slice(0, from)}${begin}\n${body.replace(/\n+$/, '')}\n${doc.slice(to)}`;
}

/** The markers of one named block: `<!-- bench:begin pipeline -->` ... `<!-- bench:end pipeline -->`. */
export function blockMarkers(tag: string, name: string): { begin: string; end: string } {
  return { begin: `<!-- ${tag}:begin ${name} -->`, end: `<!-- ${tag}:end ${name} -->` };
}

/** The names whose block the doc lacks (a marker missing, or the end before the begin). */
export function missingBlocks(doc: string, tag: string, names: readonly string[]): string[] {
  return names.filter((name) => {
    const { begin, end } = blockMarkers(tag, name);
    return replaceBetween(doc, begin, end, '') === undefined;
  });
}

/**
 * The doc with each named block's body replaced; every other byte is kept. Throws, naming them,
 * when blocks are missing: a page that lost a marker must be mended, not silently left stale.
 */
export function rewriteBlocks(doc: string, tag: string, blocks: Readonly<Record<string, string>>): string {
  const missing = missingBlocks(doc, tag, Object.keys(blocks));
  if (missing.length > 0)
    throw new Error(
      `the page has no ${missing.map((name) => `<!-- ${tag}:begin ${name} -->`).join(', ')} block (with its end marker)`,
    );
  return Object.entries(blocks).reduce((page, [name, body]) => {
    const { begin, end } = blockMarkers(tag, name);
    return replaceBetween(page, begin, end, body)!;
  }, doc);
}
