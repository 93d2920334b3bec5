import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import * as packet from 'dns-packet';
import { closeServer, isAddressInUse, listen, trackSockets } from '../net-util';
import { answerQuestion, type DnsOutcome } from './dns-answer';
import type { WorldRegistry } from '../world-registry';

const HOST = '127.0.0.1';
const PORT_ATTEMPTS = 20;
/** Classic DNS over UDP without EDNS (RFC 1035 4.2.1). */
const UDP_LIMIT = 512;
const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4 } as const;

export interface DnsServerHooks {
  /** Awaited before every answer: SMTP listeners must be bound before a client can learn their address. */
  beforeAnswer(): Promise<void>;
  onQuery(name: string, type: string): void;
}

/** A DNS server on 127.0.0.1 serving UDP and TCP on one port, answering from the world registry. */
export class DnsServer {
  private readonly tcpSockets = new Set<Socket>();
  private stopped = false;

  private constructor(
    private readonly udp: UdpSocket,
    private readonly tcp: Server,
    readonly port: number,
  ) {}

  static async start(registry: WorldRegistry, hooks: DnsServerHooks): Promise<DnsServer> {
    // UDP and TCP ports are separate spaces: take a free UDP port, then retry if TCP has it taken.
    for (let attempt = 0; ; attempt++) {
      const udp = createSocket('udp4');
      udp.bind(0, HOST);
      await once(udp, 'listening');
      const port = udp.address().port;
      const tcp = createServer();
      try {
        await listen(tcp, HOST, port);
      } catch (error) {
        udp.close();
        if (isAddressInUse(error) && attempt < PORT_ATTEMPTS) continue;
        throw error;
      }
      const server = new DnsServer(udp, tcp, port);
      server.serve(registry, hooks);
      return server;
    }
  }

  get address(): string {
    return `${HOST}:${this.port}`;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([
      closeServer(this.tcp, this.tcpSockets),
      new Promise<void>((resolve) =>
        this.udp.close(() => {
          resolve();
        }),
      ),
    ]);
  }

  private serve(registry: WorldRegistry, hooks: DnsServerHooks): void {
    // Answers are asynchronous (they wait for SMTP listeners), so one may be ready after stop().
    this.udp.on('error', () => undefined);
    this.udp.on('message', (message: Buffer, remote: RemoteInfo) => {
      void respond(registry, hooks, message, 'udp').then((response) => {
        if (response && !this.stopped) this.udp.send(response, remote.port, remote.address);
      });
    });
    trackSockets(this.tcp, this.tcpSockets);
    this.tcp.on('connection', (socket: Socket) => {
      serveTcp(socket, registry, hooks);
    });
  }
}

/** DNS over TCP: each message is preceded by its two-byte length (RFC 1035 4.2.2). */
function serveTcp(socket: Socket, registry: WorldRegistry, hooks: DnsServerHooks): void {
  let pending = Buffer.alloc(0);
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
      const message = pending.subarray(2, 2 + pending.readUInt16BE(0));
      pending = pending.subarray(2 + message.length);
      void respond(registry, hooks, message, 'tcp').then((response) => {
        if (!response || socket.destroyed) return;
        const length = Buffer.alloc(2);
        length.writeUInt16BE(response.length);
        socket.write(Buffer.concat([length, response]));
      });
    }
  });
}

/** Builds the response to one message, or undefined to stay silent (undecodable, or a timeout domain). */
async function respond(
  registry: WorldRegistry,
  hooks: DnsServerHooks,
  message: Buffer,
  transport: 'udp' | 'tcp',
): Promise<Buffer | undefined> {
  let query: packet.DecodedPacket;
  try {
    query = packet.decode(message);
  } catch {
    return undefined;
  }
  if (query.type !== 'query') return undefined;
  const question = query.questions?.[0];
  const base = { type: 'response' as const, id: query.id, questions: query.questions };
  const flags =
    packet.AUTHORITATIVE_ANSWER | packet.RECURSION_AVAILABLE | (query.flag_rd ? packet.RECURSION_DESIRED : 0);
  if (!question) return packet.encode({ ...base, flags: flags | RCODE.FORMERR });
  if (opcodeOf(message) !== 0) return packet.encode({ ...base, flags: flags | RCODE.NOTIMP });

  hooks.onQuery(question.name, question.type);
  let outcome: DnsOutcome;
  try {
    await hooks.beforeAnswer();
    outcome = answerQuestion(registry, question);
  } catch {
    outcome = { kind: 'reply', rcode: 'SERVFAIL', answers: [] };
  }
  if (outcome.kind === 'drop') return undefined;
  const response = packet.encode({ ...base, flags: flags | RCODE[outcome.rcode], answers: outcome.answers });
  if (transport === 'udp' && response.length > udpLimit(query)) {
    // Too big for this client's datagrams: set TC so that it retries over TCP.
    return packet.encode({ ...base, flags: flags | packet.TRUNCATED_RESPONSE | RCODE[outcome.rcode] });
  }
  return response;
}

function opcodeOf(message: Buffer): number {
  return (message.readUInt16BE(2) >> 11) & 0xf;
}

/** The client's advertised EDNS payload size, or 512 without EDNS. */
function udpLimit(query: packet.DecodedPacket): number {
  const opt = query.additionals?.find((record) => record.type === 'OPT');
  return opt && 'udpPayloadSize' in opt ? Math.max(UDP_LIMIT, opt.udpPayloadSize) : UDP_LIMIT;
}
