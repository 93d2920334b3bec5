import type { NodeConnectionOptions } from '@nats-io/transport-node/lib/connect';
import {
  NatsConnectionImpl,
  type NatsConnection,
  setTransportFactory,
} from '@nats-io/transport-node/lib/nats-base-client';
import { NodeTransport, nodeResolveHost } from '@nats-io/transport-node/lib/node_transport';

/**
 * The NATS client's Node transport, writing the frames of one turn of the event loop to the socket together.
 *
 * The client hands its transport what it has to send at the end of each task (a microtask after the publish),
 * so a process serving many requests at once wrote one frame per request: one `write` system call each, and on
 * loopback each of those also runs the receiving side's TCP work. Here the frames of every task that runs in
 * one turn of the loop (the requests whose sockets were ready together) are held until the turn's check phase
 * (`setImmediate`) and written in one `writev`, in the order they came. Nothing waits for a timer: an idle
 * process writes a lone frame as soon as the task that made it has ended.
 */
export class TurnWriteTransport extends NodeTransport {
  private held: Uint8Array[] = [];

  override send(frame: Uint8Array): void {
    if (this.held.push(frame) === 1) setImmediate(this.writeHeld);
  }

  override close(err?: Error): Promise<void> {
    this.writeHeld();
    return super.close(err);
  }

  /** Writes what is held, in one system call when there is more than one frame. */
  private readonly writeHeld = (): void => {
    const frames = this.held;
    if (frames.length === 0) return;
    this.held = [];
    if (frames.length === 1) {
      super.send(frames[0]!);
      return;
    }
    const socket = this.isClosed ? undefined : this.socket;
    socket?.cork();
    for (const frame of frames) super.send(frame);
    socket?.uncork();
  };
}

/** `connect` of `@nats-io/transport-node`, on TurnWriteTransport. */
export function connectTurnWrites(options: NodeConnectionOptions): Promise<NatsConnection> {
  setTransportFactory({ factory: () => new TurnWriteTransport(), dnsResolveFn: nodeResolveHost });
  return NatsConnectionImpl.connect(options);
}
