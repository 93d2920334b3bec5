/** An SMTP reply line the test chooses: code and text (the text may start with an enhanced status code). */
export interface SmtpReply {
  code: number;
  text: string;
}

/** Behaviour of one SMTP host of the mail world. */
export interface SmtpHostSpec {
  /** Local parts that exist (RCPT 250); every other local part gets 550 5.1.1 unless `catchAll`. */
  mailboxes?: string[];
  /** RCPT 250 for every local part. */
  catchAll?: boolean;
  /** Fixed reply to every RCPT (e.g. 450 greylisting, 452 4.2.2, 552 mailbox full). */
  rcptReply?: SmtpReply;
  /** Greeting instead of 220: 421 closes the connection, any other code waits for QUIT (RFC 5321 3.1). */
  banner?: SmtpReply;
  /** Accept the TCP connection and never send anything (the client must time out). */
  silent?: boolean;
  /** Delay before every reply, the greeting included (a slow server). */
  delayMs?: number;
  /** Keep the session this long after the last RCPT before answering QUIT (occupies a client's slot). */
  holdMs?: number;
  /**
   * STARTTLS: 'offered' announces it and upgrades; 'required' also refuses MAIL before TLS with
   * `530 5.7.0 Must issue a STARTTLS command first`; 'broken' announces it, says 220, then answers the client's
   * handshake with bytes that are not TLS and hangs up (plain sessions work).
   */
  starttls?: 'offered' | 'required' | 'broken';
  /**
   * The first `times` RCPTs of a session naming a local part outside `mailboxes` get `reply` (e.g. 452 to a
   * catch-all probe), whatever `catchAll` says; later ones get the usual answer.
   */
  deferUnknown?: { times: number; reply: SmtpReply };
  /**
   * Greylisting (postgrey): a (client IP, MAIL FROM, RCPT TO) triplet first seen gets
   * `450 4.2.0 ... Greylisted`, and so does every attempt until `delayMs` has passed since; later attempts get
   * the usual answer. The triplets are remembered across the host's sessions.
   */
  greylist?: { delayMs: number };
}

/** One MX record and what its host does. */
export interface MxSpec {
  priority: number;
  /** The MX host name (e.g. "mx1.example.test"); its A record is an allocated 127.x address. */
  host: string;
  /** 'refused': A record exists, nothing listens there; 'no-address': the host name is NXDOMAIN. */
  smtp: SmtpHostSpec | 'refused' | 'no-address';
}

/** A test domain: its DNS answers, blocklist entries and registration date. */
export interface DomainSpec {
  /** MX records; omit for "no MX". */
  mx?: MxSpec[];
  /** RFC 7505 null MX: a single MX "0 .". */
  nullMx?: boolean;
  /** A record of the domain itself (implicit MX when there is no MX); 'no-smtp': an address with nothing listening. */
  a?: SmtpHostSpec | 'no-smtp';
  /** NXDOMAIN for every query of the domain name. */
  nxdomain?: boolean;
  /** SERVFAIL for every query of the domain name. */
  servfail?: boolean;
  /** Never answer a query of the domain name (the client times out). */
  dnsTimeout?: boolean;
  /** DNSBL domain zones listing this domain: "<domain>.<zone>" A answers 127.0.1.2. */
  listedIn?: string[];
  /** RDAP registration date; without it RDAP answers 404. */
  createdAt?: Date;
  /** TXT records of the domain name (an SPF record is one: "v=spf1 mx -all"). */
  txt?: string[];
  /** The DMARC record: TXT of "_dmarc.<domain>" ("v=DMARC1; p=reject"); without it that name is NXDOMAIN. */
  dmarc?: string;
}

/** What a host name does when a client connects to its address. */
export type HostBehaviour = SmtpHostSpec | 'refused' | 'no-address';

/** Normalises a DNS name for lookups: lowercase, no trailing dot. */
export function canonicalName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}
