// The workflow a student's fork enables (.github/workflows/lessons.yml) must be one GitHub accepts:
// it is validated against the workflow schema (action-validator, the SchemaStore schema GitHub's
// syntax is published as), a broken copy must fail the same validation, and it must run every
// lesson with the pinned pnpm and the Node the course runs on.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateWorkflow } from '@action-validator/core';
import { describe, expect, it } from 'vitest';
import { findLab, REPO_ROOT } from '../src/labs.ts';
import { LESSONS } from '../src/lessons.ts';

const WORKFLOW = join(REPO_ROOT, '.github', 'workflows', 'lessons.yml');
const text = readFileSync(WORKFLOW, 'utf8');
const rootPackage = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { packageManager: string };

describe('the lessons workflow for a student fork', () => {
  it('When GitHub reads .github/workflows/lessons.yml, Then it is a valid workflow by the published schema [test:workflow-valid]', () => {
    expect(validateWorkflow(text).errors).toEqual([]);
  });

  it('When a step is misspelt in a copy, Then the same validation rejects it (the check can fail) [test:workflow-broken-copy-rejected]', () => {
    const broken = text.replace('    steps:\n', '    step:\n');
    expect(broken).not.toBe(text);
    expect(validateWorkflow(broken).errors.length).toBeGreaterThan(0);
  });

  it('When the matrix is read, Then it names every lesson with a lab, and the workflow installs the pinned pnpm and Node 20 [test:workflow-every-lesson]', () => {
    const matrix = /^\s+lesson: \[(.*)\]$/m.exec(text)?.[1];
    const lessons = (matrix ?? '').split(',').map((item) => item.trim().replace(/'/g, ''));
    expect(lessons).toEqual(LESSONS.filter((lesson) => findLab(lesson)).map((lesson) => lesson.number));
    expect(text).toContain(`npm install --global ${rootPackage.packageManager}`);
    expect(text).toMatch(/node-version: '20'/);
  });
});
