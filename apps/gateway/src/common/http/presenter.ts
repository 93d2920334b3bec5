import type { ResponseStyle } from '@emailverify/contracts';

/** Renders one resource in both response styles; services never know about styles. */
export interface Presenter<T> {
  current(value: T): unknown;
  legacy(value: T): unknown;
}

/**
 * A presenter of a resource without an older variant: the legacy style is the current `data` payload unwrapped
 * (docs/design.md, "Two response styles").
 */
export const inBothStyles = <T>(render: (value: T) => unknown): Presenter<T> => ({
  current: render,
  legacy: render,
});

/** A controller's result, rendered in the request's style as the reply is sent (GatewayExpressAdapter). */
export class Presented<T> {
  constructor(
    readonly presenter: Presenter<T>,
    readonly value: T,
    readonly message = 'Success',
  ) {}

  render(style: ResponseStyle): unknown {
    switch (style) {
      case 'current':
        return { success: true, code: '0', message: this.message, data: this.presenter.current(this.value) };
      case 'legacy':
        return this.presenter.legacy(this.value);
    }
  }
}

export const present = <T>(presenter: Presenter<T>, value: T, message?: string): Presented<T> =>
  new Presented(presenter, value, message);
