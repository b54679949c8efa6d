// Integration: what can and cannot cross the process boundary, on real worker processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotSendableError, ProcessPool } from '../src/process-pool.ts';
import { exportRowFor, exportRowsFor, type ExportRow } from '../src/scoring.ts';

let advanced: ProcessPool;
let json: ProcessPool;

beforeAll(async () => {
  [advanced, json] = await Promise.all([
    new ProcessPool({ size: 2 }).start(),
    new ProcessPool({ size: 1, serialization: 'json' }).start(),
  ]);
});

afterAll(async () => {
  await Promise.all([advanced?.close(), json?.close()]);
});

const withExtra = (extra: Record<string, unknown>): ExportRow => ({ ...exportRowFor(3), ...extra }) as ExportRow;

class PriceTag {
  constructor(readonly cents: number) {}
  describe(): string {
    return `${this.cents / 100} EUR`;
  }
}

describe('advanced (structured clone) channel', () => {
  it('When a row carries a function, Then the batch fails naming the row and no row is scored [test:function-in-row-refused]', async () => {
    const rows = [exportRowFor(1), withExtra({ normalise: (text: string) => text.trim() })];
    let scored = 0;
    const batch = advanced.scoreBatch(rows, { rounds: 10, onProgress: (done) => (scored = done) });

    await expect(batch).rejects.toThrow(NotSendableError);
    await expect(batch).rejects.toThrow(/^row 1 cannot be sent to a worker process: .*could not be cloned/);
    expect(scored).toBe(0);
  });

  it('When a row carries a Symbol, Then the batch fails the same way', async () => {
    await expect(advanced.scoreBatch([withExtra({ tag: Symbol('hot') })], { rounds: 10 })).rejects.toThrow(
      /row 0 .*could not be cloned/,
    );
  });

  it('When a class instance is sent, Then its data arrives but its methods do not (a silent trap) [test:class-instance-loses-methods]', async () => {
    const { payload } = await advanced.echo({ price: new PriceTag(1250) });
    const price = (payload as { price: Record<string, unknown> }).price;

    expect(price).toEqual({ cents: 1250 });
    expect(price.describe).toBeUndefined();
  });

  it('When a batch fails to send, Then the pool still scores the next batch', async () => {
    await expect(advanced.scoreBatch([withExtra({ f: () => 1 })])).rejects.toThrow(NotSendableError);
    const { scores } = await advanced.scoreBatch(exportRowsFor([1, 2]), { rounds: 10 });
    expect(scores).toHaveLength(2);
  });
});

describe("JSON channel (fork's default)", () => {
  it('When a row carries a function, Then it silently vanishes on the way [test:json-channel-drops-functions]', async () => {
    const { keys } = await json.echo(withExtra({ normalise: (text: string) => text.trim() }));
    expect(keys).toEqual(['productId', 'text']);
  });

  it('When a row carries a BigInt, Then the send fails with a clear error', async () => {
    await expect(json.scoreBatch([withExtra({ weight: 10n })], { rounds: 10 })).rejects.toThrow(
      /^row 0 cannot be sent to a worker process: Do not know how to serialize a BigInt/,
    );
  });
});
