import { classifyAddress } from '@emailverify/net-policy';
import type { DomainFacts, MailHost } from './dns';

/**
 * The network rule of verification: never connect to a non-public address (loopback, private, link-local,
 * unique-local, CGNAT, multicast, reserved and their IPv4-mapped forms). Each mail host keeps only its public
 * addresses and a host left with none is dropped; when no host is left the domain cannot receive mail from
 * the internet: undeliverable `no_mx_records`, with a message naming what was refused. SMTP_ALLOW_PRIVATE_NETWORKS
 * (tests on loopback, private deployments) lifts the rule, and `facts` are then returned unchanged.
 */
export function publicRouting(facts: DomainFacts, allowPrivateNetworks: boolean): DomainFacts {
  if (facts.kind !== 'deliverable' || allowPrivateNetworks) return facts;
  const refused: string[] = [];
  const hosts: MailHost[] = [];
  for (const host of facts.hosts) {
    const addresses = host.addresses.filter((address) => {
      const range = classifyAddress(address);
      if (range === 'public') return true;
      refused.push(`${host.exchange === address ? address : `${host.exchange} ${address}`}: ${range}`);
      return false;
    });
    if (addresses.length > 0) hosts.push({ ...host, addresses });
  }
  if (hosts.length > 0) return refused.length === 0 ? facts : { ...facts, hosts };
  return {
    kind: 'undeliverable',
    reason: 'no_mx_records',
    mxRecords: facts.mxRecords,
    message: `no mail host has a public address (${refused.join('; ')}); non-public addresses are never contacted`,
  };
}

/** The same rule at the moment of connecting: the reason `address` may not be dialled, or undefined. */
export function refusedTarget(address: string, allowPrivateNetworks: boolean): string | undefined {
  if (allowPrivateNetworks) return undefined;
  const range = classifyAddress(address);
  return range === 'public' ? undefined : `refused: ${address} is a non-public address (${range})`;
}
