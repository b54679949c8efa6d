// The lesson doc and the reference record state facts the lab holds as data or the
// infra decides: they must say the same.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseDecisionRecord } from '../src/decision-record.ts';
import { COMPARED_FACTS, QUEUE_COMPARISON } from '../src/queue-comparison.ts';

const repo = fileURLToPath(new URL('../../..', import.meta.url));
const doc = readFileSync(join(repo, 'docs', '07-choosing-executors.md'), 'utf8');
const reference = parseDecisionRecord(
  readFileSync(join(repo, 'labs', '07-choosing-executors', 'solutions', 'decision-record.md'), 'utf8'),
);

describe('docs/07 and the reference record', () => {
  it('When the doc shows the queue comparison, Then it names each queue at the version the data holds, with every fact [test:queue-comparison-in-doc]', () => {
    for (const row of QUEUE_COMPARISON) {
      expect(doc).toContain(`| ${row.package} ${row.version} |`);
      for (const fact of COMPARED_FACTS) expect(doc).toContain(row[fact].says.replace(/\|/g, '\\|'));
    }
  });

  it('When the labs run MySQL in Docker and MariaDB without it, Then the doc and the record name both, at the versions the infra uses [test:database-named-as-infra-runs]', () => {
    const compose = readFileSync(join(repo, 'infra', 'docker-compose.yml'), 'utf8');
    const mysql = /image:\s*mysql:(\S+)/.exec(compose)?.[1];
    expect(mysql).toBeDefined();
    for (const text of [doc, reference.queue.sourceOfTruth]) {
      expect(text).toContain(`MySQL ${mysql}`);
      expect(text).toContain('MariaDB');
      expect(text).toContain('infra:status');
    }
  });
});
