// The server's settings are read once and checked (src/options.ts).
import { describe, expect, it } from 'vitest';
import { OptionsError } from '@tasks-lab/lab-kit';
import { BACKGROUND_DEFAULTS, BACKGROUND_SERVER_OPTIONS } from '../src/index.ts';

describe('BACKGROUND_SERVER_OPTIONS', () => {
  it('When nothing is set, Then the course values apply: port 8000, a 1 s export, a 3 s grace, 1 s for clean-up', () => {
    expect(BACKGROUND_SERVER_OPTIONS.read({ env: {} })).toEqual({
      port: 8000,
      exportWorkMs: 1000,
      shutdownGraceMs: 3000,
      cancelCleanupMs: 1000,
    });
    expect(BACKGROUND_DEFAULTS).toEqual(BACKGROUND_SERVER_OPTIONS.read({ env: {} }));
  });

  it('When PORT is 0 and the timings are set, Then they are used (0 lets the OS pick a port)', () => {
    expect(
      BACKGROUND_SERVER_OPTIONS.read({ env: { PORT: '0', EXPORT_WORK_MS: '30000', SHUTDOWN_GRACE_MS: '400' } }),
    ).toMatchObject({
      port: 0,
      exportWorkMs: 30_000,
      shutdownGraceMs: 400,
    });
  });

  it.each([
    ['SHUTDOWN_GRACE_MS', '0'],
    ['SHUTDOWN_GRACE_MS', '-100'],
    ['SHUTDOWN_GRACE_MS', '3s'],
    ['EXPORT_WORK_MS', '0'],
    ['CANCEL_CLEANUP_MS', 'soon'],
  ])('When %s is "%s", Then it is refused with a message naming the variable and its bounds', (variable, value) => {
    const read = () => BACKGROUND_SERVER_OPTIONS.read({ env: { [variable]: value } });
    expect(read).toThrow(OptionsError);
    expect(read).toThrow(
      new RegExp(`${variable} must be a whole number of milliseconds from 1 to \\d+, got "${value}"`),
    );
  });

  it('When PORT is out of range, Then it is refused', () => {
    expect(() => BACKGROUND_SERVER_OPTIONS.read({ env: { PORT: '70000' } })).toThrow(
      /PORT must be a whole number from 0 to 65535/,
    );
  });
});
