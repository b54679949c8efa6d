// Try-it-yourself exercises follow rustlings: `exercise/<file>` holds the student's
// copy with one `// TODO:` per gap; `solutions/<file>` holds the reference answer.
// The exercise test loads one or the other, so the same assertions grade both.
//   LAB_EXERCISE=student -> exercise/<file>   (pnpm lab NN --exercise)
//   otherwise            -> solutions/<file>  (pnpm test, CI, pnpm lab NN --solution)

export function exerciseTarget(): 'exercise' | 'solutions' {
  return process.env.LAB_EXERCISE === 'student' ? 'exercise' : 'solutions';
}

/** Imports `<lab>/<exercise|solutions>/<file>`; `testFileUrl` is the test's import.meta.url. */
export async function loadExercise<T>(testFileUrl: string, file: string): Promise<T> {
  const url = new URL(`../${exerciseTarget()}/${file}`, testFileUrl);
  return (await import(url.href)) as T;
}
