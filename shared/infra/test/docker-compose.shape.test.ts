// No Docker engine runs on CI, so the compose file cannot be started there. This test
// pins down what it must say: the course's images, loopback-only ports, the Redis
// settings BullMQ needs, named volumes, UTC, and passwords only from .env.tasks.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { INFRA_DIR } from '../src/settings.ts';

interface ComposeService {
  image: string;
  ports: string[];
  environment: Record<string, string>;
  command: string[];
  volumes: string[];
  healthcheck: { test: string[] };
}

const text = readFileSync(join(INFRA_DIR, 'docker-compose.yml'), 'utf8');
const compose = parse(text) as {
  services: Record<'redis' | 'mysql', ComposeService>;
  volumes: Record<string, unknown>;
};

describe('infra/docker-compose.yml', () => {
  it('When students use Docker, Then they get redis:7 and mysql:8.4 on loopback ports 6384 and 3307', () => {
    expect(compose.services.redis.image).toBe('redis:7');
    expect(compose.services.mysql.image).toBe('mysql:8.4');
    expect(compose.services.redis.ports).toEqual(['127.0.0.1:${TASKS_LAB_REDIS_PORT:-6384}:6379']);
    expect(compose.services.mysql.ports).toEqual(['127.0.0.1:${TASKS_LAB_MYSQL_PORT:-3307}:3306']);
  });

  it('Redis requires the generated password, keeps an AOF every second, 256 MB, and never evicts', () => {
    const command = compose.services.redis.command.join(' ');
    expect(command).toContain('--requirepass "$$TASKS_REDIS_PASSWORD"');
    expect(command).toContain('--appendonly yes --appendfsync everysec');
    expect(command).toContain('--maxmemory 256mb --maxmemory-policy noeviction');
    expect(compose.services.redis.environment.TASKS_REDIS_PASSWORD).toMatch(/^\$\{TASKS_REDIS_PASSWORD:\?/);
  });

  it('MySQL runs in UTC with utf8mb4, and its passwords come from .env.tasks only', () => {
    expect(compose.services.mysql.command).toEqual(
      expect.arrayContaining(['--character-set-server=utf8mb4', '--default-time-zone=+00:00']),
    );
    expect(compose.services.mysql.environment.MYSQL_ROOT_PASSWORD).toMatch(/^\$\{TASKS_MYSQL_ROOT_PASSWORD:\?/);
    expect(compose.services.mysql.environment.MYSQL_PASSWORD).toMatch(/^\$\{TASKS_MYSQL_PASSWORD:\?/);
    expect(compose.services.mysql.environment.TZ).toBe('UTC');
    expect(compose.services.redis.environment.TZ).toBe('UTC');
  });

  it('Data lives in named volumes, and no secret-looking value is written into the file', () => {
    expect(Object.keys(compose.volumes).sort()).toEqual(['mysql-data', 'redis-data']);
    expect(compose.services.redis.volumes).toContain('redis-data:/data');
    expect(compose.services.mysql.volumes).toContain('mysql-data:/var/lib/mysql');
    expect(text).not.toMatch(/[0-9a-f]{32}/);
  });
});
