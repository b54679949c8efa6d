// BullMQ declares its connection type against its own copy of ioredis's options, which
// disagrees with ioredis on one detail (retryStrategy may be null). The values are
// the same, so the cast is stated once here.
import type { ConnectionOptions } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { redisOptions } from '@tasks-lab/infra';

export const retryLabConnection = (overrides: RedisOptions = {}): ConnectionOptions => redisOptions(overrides) as ConnectionOptions;
