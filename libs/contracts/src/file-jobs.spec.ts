import { describe, expect, it } from 'vitest';
import { type ChunkItemResult, packChunkItem, unpackChunkItem } from './file-jobs';

const item: ChunkItemResult = {
  email: 'jane@files.test',
  status: 'catchall',
  reason: 'catch_all',
  score: 0.7,
  isDeliverable: false,
  isDisposable: false,
  isCatchall: true,
  isRole: false,
  isFree: true,
  domain: 'files.test',
  mxRecords: ['mx1.files.test', 'mx2.files.test'],
  domainSuggestion: 'files.com',
  smtpCheck: true,
  creditsUsed: 1,
};

describe('packed chunk items', () => {
  it('round-trip every field, each flag on its own', () => {
    expect(unpackChunkItem(packChunkItem(item))).toEqual(item);
    for (const flag of [
      'isDeliverable',
      'isDisposable',
      'isCatchall',
      'isRole',
      'isFree',
      'smtpCheck',
    ] as const) {
      const only = {
        ...item,
        isDeliverable: false,
        isDisposable: false,
        isCatchall: false,
        isRole: false,
        isFree: false,
        smtpCheck: false,
        [flag]: true,
      };
      expect(unpackChunkItem(JSON.parse(JSON.stringify(packChunkItem(only))))).toEqual(only);
    }
  });

  it('are a good deal smaller than the object', () => {
    expect(JSON.stringify(packChunkItem(item)).length).toBeLessThan(JSON.stringify(item).length / 2);
  });
});
