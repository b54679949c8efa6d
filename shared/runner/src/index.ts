export * from './lessons.ts';
export * from './labs.ts';
export * from './repeat.ts';
export * from './diff.ts';
