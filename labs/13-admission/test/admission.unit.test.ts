// The pure parts of admission: the route, the client's name, what "the database did not
// answer" looks like. No database here.
import { describe, expect, it } from 'vitest';
import { databaseDownReason, DatabaseUnavailableError } from '@tasks-lab/11-mysql-leases';
import { ANONYMOUS_CLIENT, checkClientId, routeFor } from '../src/admission.ts';
import { routeNamed } from '../src/queue.ts';

describe('routeFor', () => {
  it('When an export has at most 30 rows, Then it goes to exports.fast; 31 and more go to exports.bulk [test:route-boundary-30]', () => {
    expect([1, 30, 31, 100].map((rows) => routeFor(rows))).toEqual([
      'exports.fast',
      'exports.fast',
      'exports.bulk',
      'exports.bulk',
    ]);
  });

  it('When the threshold is configured, Then it moves the boundary', () => {
    expect([5, 6].map((rows) => routeFor(rows, 5))).toEqual(['exports.fast', 'exports.bulk']);
  });
});

describe('checkClientId', () => {
  it('When no Client-Id is sent, Then the request counts as the anonymous client', () => {
    expect(checkClientId(undefined)).toBe(ANONYMOUS_CLIENT);
  });

  it('When the Client-Id is a short name, Then it is kept as sent', () => {
    expect(checkClientId('shop-7.eu_1')).toBe('shop-7.eu_1');
  });

  it('When the Client-Id is empty, too long, or holds spaces, commas or control characters, Then it is a 400 [test:client-id-checked]', () => {
    for (const bad of ['', 'x'.repeat(65), 'a b', 'a,b', 'a\u0000b', 'é']) {
      expect(() => checkClientId(bad), JSON.stringify(bad)).toThrow(
        expect.objectContaining({ code: 'invalid-client-id', status: 400 }),
      );
    }
  });
});

describe('databaseDownReason, as the admission answers 503 with it', () => {
  it('When mysql2 or a socket reports that the database did not answer, Then its code is the reason', () => {
    expect(
      databaseDownReason(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3307'), { code: 'ECONNREFUSED' })),
    ).toBe('ECONNREFUSED');
    expect(databaseDownReason(Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' }))).toBe(
      'PROTOCOL_CONNECTION_LOST',
    );
    expect(databaseDownReason(new DatabaseUnavailableError('tasks_lab13', 'ECONNREFUSED'))).toBe('ECONNREFUSED');
  });

  it('When the error is anything else (a constraint, a syntax error, a plain bug), Then it is not "unreachable"', () => {
    expect(
      databaseDownReason(Object.assign(new Error('Duplicate entry'), { code: 'ER_DUP_ENTRY', errno: 1062 })),
    ).toBeUndefined();
    expect(databaseDownReason(new TypeError('x is undefined'))).toBeUndefined();
  });
});

describe('routeNamed', () => {
  it('When the worker is started with fast or bulk, Then it consumes that queue; anything else is refused with the choices', () => {
    expect(routeNamed('fast').queueName).toBe('exports.fast');
    expect(routeNamed('bulk').queueName).toBe('exports.bulk');
    expect(() => routeNamed(undefined)).toThrow(/`fast` \(exports.fast\) or `bulk` \(exports.bulk\)/);
    expect(() => routeNamed('exports')).toThrow(/got "exports"/);
  });
});
