import { describe, expect, it } from 'vitest';
import { type Presenter, present } from './presenter';

const presenter: Presenter<{ n: number }> = {
  current: ({ n }) => ({ number: n }),
  legacy: ({ n }) => ({ value: n, old: true }),
};

describe('Presented', () => {
  it('wraps the current rendering in the success envelope', () => {
    expect(present(presenter, { n: 7 }).render('current')).toEqual({
      success: true,
      code: '0',
      message: 'Success',
      data: { number: 7 },
    });
    expect(present(presenter, { n: 7 }, 'Job created').render('current')).toMatchObject({
      message: 'Job created',
    });
  });

  it('answers the legacy rendering as it is, without an envelope', () => {
    expect(present(presenter, { n: 7 }, 'Job created').render('legacy')).toEqual({ value: 7, old: true });
  });
});
