import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { peakRssGrowth } from './helpers';

const MiB = 1024 * 1024;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Touches `mib` MiB of fresh memory and gives it back, all without yielding to the event loop. */
function spike(mib: number): void {
  let block: Buffer | undefined = Buffer.alloc(mib * MiB, 1);
  expect(block[block.length - 1]).toBe(1);
  block = undefined;
  gc();
}

describe('peakRssGrowth', () => {
  it('sees a peak that synchronous work reached and gave back before it returned', async () => {
    const growth = await peakRssGrowth(async () => spike(64));
    expect(growth).toBeGreaterThanOrEqual(56 * MiB);
  });

  it.runIf(process.platform === 'linux')(
    'does not count an earlier, higher peak of the process',
    async () => {
      spike(128);
      const growth = await peakRssGrowth(async () => spike(64));
      expect(growth).toBeGreaterThanOrEqual(56 * MiB);
      expect(growth).toBeLessThan(100 * MiB);
    },
  );

  it('passes on what work throws', async () => {
    await expect(
      peakRssGrowth(async () => {
        expect(1).toBe(2);
      }),
    ).rejects.toThrow('expected 1 to be 2');
  });
});
