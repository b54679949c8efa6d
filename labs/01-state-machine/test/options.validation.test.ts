import { OptionsError } from '@tasks-lab/lab-kit';
import { describe, expect, it } from 'vitest';
import { SERVER_OPTIONS } from '../src/options.ts';

describe('options: what the server reads from the environment', () => {
  it('When PORT is not set, Then the course port 8000 is used', () => {
    expect(SERVER_OPTIONS.read({ env: {} })).toEqual({ port: 8000 });
  });

  it('When PORT is 0, Then it is accepted (the OS picks a free port)', () => {
    expect(SERVER_OPTIONS.read({ env: { PORT: '0' } }).port).toBe(0);
  });

  it.each(['-1', '65536', '80.5', 'eighty'])(
    'When PORT is "%s", Then an OptionsError names PORT and its bounds',
    (port) => {
      expect(() => SERVER_OPTIONS.read({ env: { PORT: port } })).toThrow(OptionsError);
      expect(() => SERVER_OPTIONS.read({ env: { PORT: port } })).toThrow(/PORT must be a whole number from 0 to 65535/);
    },
  );
});
