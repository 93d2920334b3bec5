// The reply both baselines of the gateway benchmark send for GET /v1/verify/disposable: the same
// checkDisposable() lookup and the current-style envelope the gateway sends.
import { checkDisposable } from '@emailverify/verification';

export const DISPOSABLE_PATH = '/v1/verify/disposable';

/** Status and body for one address: 200 with the envelope, or 400 when the lookup refuses the input. */
export function disposableReply(email: string): { status: number; body: unknown } {
  try {
    const check = checkDisposable(email);
    return {
      status: 200,
      body: {
        success: true,
        code: '0',
        message: 'Success',
        data: {
          email: check.email,
          domain: check.domain,
          is_disposable: check.isDisposable,
          checked_at: new Date().toISOString(),
        },
      },
    };
  } catch (err) {
    return {
      status: 400,
      body: { success: false, code: '4001', message: err instanceof Error ? err.message : String(err) },
    };
  }
}

/** Prints {"port":N} once listening; stops on SIGTERM or when stdin closes (the benchmark ended). */
export function serveUntilParentEnds(listen: () => Promise<number>, close: () => Promise<void>): void {
  const stop = () => void close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
  void listen().then((port) => process.stdout.write(`${JSON.stringify({ port })}\n`));
}
