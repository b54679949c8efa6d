// Lab 08's broker connection, typed for BullMQ (the one cast lives there).
import type { ConnectionOptions } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { brokerConnection, queueConnection } from '@tasks-lab/09-redelivery';

export const retryLabConnection = (overrides: RedisOptions = {}): ConnectionOptions =>
  queueConnection(brokerConnection(overrides));
