// An AppError may carry headers (lesson 13's 503 and 429 carry Retry-After): the one error
// middleware sends them with the JSON answer, and an error without headers sends none.
import express from 'express';
import { describe, expect, it } from 'vitest';
import { AppError } from '../src/app-error.ts';
import { errorMiddleware } from '../src/error-middleware.ts';
import { listen } from '../src/server.ts';

async function answerTo(err: Error): Promise<Response> {
  const app = express();
  app.get('/', () => {
    throw err;
  });
  app.use(errorMiddleware(() => {}));
  const server = await listen(app, 0);
  try {
    return await fetch(server.url);
  } finally {
    await server.close();
  }
}

describe('error middleware headers', () => {
  it("When an AppError carries headers, Then the answer has them next to the error's status and JSON body", async () => {
    const res = await answerTo(new AppError('capacity-exceeded', 'full', 503, { headers: { 'Retry-After': '5' } }));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toEqual({ error: 'capacity-exceeded', message: 'full' });
  });

  it('When an AppError carries no headers, Then no Retry-After is sent', async () => {
    const res = await answerTo(new AppError('job-not-found', 'no such job', 404));
    expect(res.headers.get('retry-after')).toBeNull();
  });
});
