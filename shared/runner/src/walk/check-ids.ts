// Prints the ids of a lab's checks as JSON, without running any: `node --import tsx check-ids.ts <lab
// folder>`. buildChecks() only builds (CONTRIBUTING.md §3), so this starts nothing. It runs as its
// own process because importing a lab's checks loads that lab's whole dependency tree.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const labDir = process.argv[2];
if (!labDir) throw new Error('usage: check-ids.ts <lab folder>');
const { buildChecks } = (await import(pathToFileURL(join(labDir, 'scripts', 'checks.ts')).href)) as {
  buildChecks: () => Array<{ id: string }>;
};
console.log(JSON.stringify(buildChecks().map((check) => check.id)));
