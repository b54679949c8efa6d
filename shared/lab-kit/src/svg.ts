// What the hand-written SVG charts share (the benchmarks' bar charts, lesson 16's matrix timelines).

/** Escapes text for XML content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );
}
