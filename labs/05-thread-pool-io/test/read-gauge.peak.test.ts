import { describe, expect, it } from 'vitest';
import { createReadGauge, enterRead, leaveRead, readGauge } from '../src/read-gauge.ts';

describe('read gauge', () => {
  it('When two reads overlap and then end, Then the gauge is back to 0 and remembers a peak of 2', () => {
    const gauge = createReadGauge();
    enterRead(gauge);
    enterRead(gauge);
    leaveRead(gauge);
    enterRead(gauge);
    leaveRead(gauge);
    leaveRead(gauge);

    expect(readGauge(gauge)).toEqual({ inRead: 0, peakInRead: 2 });
  });
});
