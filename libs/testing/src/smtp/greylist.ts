import type { SmtpReply } from '../world-spec';

/**
 * Greylisting as postgrey does it: the first delivery attempt of a (client IP, sender, recipient) triplet is
 * refused for now (450 4.2.0), and the same triplet is let through once `delayMs` has passed since it was first
 * seen. One per SMTP host, kept across its sessions. `delayMs` Infinity greylists forever.
 */
export class Greylist {
  private readonly firstSeen = new Map<string, number>();

  constructor(private readonly delayMs: number) {}

  /** The refusal for a triplet still greylisted, or undefined once it may pass. */
  check(clientIp: string, sender: string, recipient: string, now = Date.now()): SmtpReply | undefined {
    const key = `${clientIp}\n${sender.toLowerCase()}\n${recipient.toLowerCase()}`;
    const seen = this.firstSeen.get(key);
    if (seen === undefined) this.firstSeen.set(key, now);
    if (seen !== undefined && now - seen >= this.delayMs) return undefined;
    return {
      code: 450,
      text: `4.2.0 <${recipient}>: Recipient address rejected: Greylisted, please try again later`,
    };
  }

  /** Triplets seen so far. */
  get triplets(): number {
    return this.firstSeen.size;
  }
}
