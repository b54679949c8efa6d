// Each lab's migrations/schema.txt is what its migration chain really builds: the chain is applied to
// an empty scratch database on the labs' own server and read back. A migration changed without
// regenerating the file (or a file edited by hand) fails here, naming the command that fixes it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findLab, type Lab } from '../src/labs.ts';
import { LESSONS } from '../src/lessons.ts';
import { readLabSchema, schemaFile } from '../src/schema.ts';

const labsWithDatabase = LESSONS.map((lesson) => findLab(lesson)).filter(
  (lab): lab is Lab => lab?.needs.includes('mysql') === true,
);

describe('the committed schema of each lab', () => {
  it('When the list of labs is read, Then lessons 10 to 16 have a database and a schema file', () => {
    expect(labsWithDatabase.map((lab) => lab.lesson.number)).toEqual(['10', '11', '12', '13', '14', '15', '16']);
  });

  it.each(labsWithDatabase.map((lab) => [lab.lesson.number, lab] as const))(
    "When lab %s's migrations are applied to an empty database, Then the schema read back equals its migrations/schema.txt",
    { timeout: 120_000 },
    async (number, lab) => {
      const committed = readFileSync(schemaFile(lab), 'utf8');
      const actual = await readLabSchema(lab);
      expect(
        actual,
        `labs/${lab.dir.split('/labs/')[1]}/migrations/schema.txt is out of date: run pnpm lab schema ${number} --write`,
      ).toBe(committed);
    },
  );
});
