/**
 * Hands out loopback addresses for SMTP hosts: 127.0.0.10 upward, then 127.0.1.10 upward and so on.
 * Every 127.x.y.z is on `lo` on Linux, so each host gets its own address and all share one port.
 * Each block skips .0 to .9 so that 127.0.1.1 (Debian's hostname address in /etc/hosts) and the DNSBL
 * answer addresses (127.0.0.2, 127.0.1.2) never belong to a host.
 */
const FIRST_OCTET = 10;
const LAST_OCTET = 254;
const PER_BLOCK = LAST_OCTET - FIRST_OCTET + 1;
const BLOCKS = 256;

export class AddressPool {
  private next = 0;

  allocate(): string {
    if (this.next >= PER_BLOCK * BLOCKS) throw new Error('MailWorld: loopback addresses exhausted');
    const index = this.next++;
    return addressAt(index);
  }
}

export function addressAt(index: number): string {
  const block = Math.floor(index / PER_BLOCK);
  const octet = FIRST_OCTET + (index % PER_BLOCK);
  return `127.0.${block}.${octet}`;
}
