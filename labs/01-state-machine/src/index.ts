export * from './app-error.ts';
export * from './store.ts';
export * from './schemas.ts';
export * from './app.ts';
export * from './server.ts';
export * from './error-middleware.ts';
