export * from './settings.ts';
export * from './credentials.ts';
export * from './probe.ts';
export * from './services.ts';
export * from './connections.ts';
export * from './private-redis.ts';
export { nativeMysqlPid, nativeRedisPid } from './native.ts';
export * from './migrations.ts';
