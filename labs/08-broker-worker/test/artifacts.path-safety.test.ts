import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { artifactPath, InvalidArtifactIdError, sha256, writeArtifact } from '../src/artifacts.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lab08-artifacts-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const rows = [{ id: 7, name: 'Kettle', description: 'steel', is_active: true, price_cents: 1999 }];

describe('writeArtifact', () => {
  it('When the id is a UUID, Then the file holds exactly the rows and the result describes it', () => {
    const id = randomUUID();
    const result = writeArtifact(id, rows, { artifactsDir: dir });
    const bytes = readFileSync(join(dir, `${id}.json`));
    expect(JSON.parse(bytes.toString('utf8'))).toEqual(rows);
    expect(result).toMatchObject({ job_id: id, rows: 1, sha256: sha256(bytes) });
    expect(result.path.endsWith(`${id}.json`)).toBe(true);
  });

  it('When the id is upper-case, Then the file name uses the canonical lower-case form [test:artifact-name-canonical]', () => {
    const id = randomUUID();
    writeArtifact(id.toUpperCase(), rows, { artifactsDir: dir });
    expect(readdirSync(dir)).toEqual([`${id}.json`]);
  });

  for (const bad of ['../../etc/passwd', '', 'not-a-uuid', `${randomUUID()}/../x`, `${randomUUID()}.json`]) {
    it(`When the id is ${JSON.stringify(bad)}, Then it is refused with a clear error and no file or folder appears [test:artifact-id-checked-before-path]`, () => {
      const target = join(dir, 'nested');
      expect(() => writeArtifact(bad, rows, { artifactsDir: target })).toThrow(InvalidArtifactIdError);
      expect(() => writeArtifact(bad, rows, { artifactsDir: target })).toThrow(/is not a UUID/);
      expect(existsSync(target)).toBe(false);
    });
  }

  it('When only the path is asked for, Then a bad id is refused the same way', () => {
    expect(() => artifactPath('..', dir)).toThrow(InvalidArtifactIdError);
  });
});
